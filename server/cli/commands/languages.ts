import type { Command } from 'commander';
import { netPolicyOf } from '../../config/net-policy.js';
import { createGuardedFetch } from '../../core/net/guarded-fetch.js';
import { BUNDLED_LANGUAGES, LANGUAGE_CATALOG, knownLanguageCodes, languageInfo } from '../../core/ocr/language-catalog.js';
import {
  DEFAULT_NPM_REGISTRY,
  installedNote,
  installFromPath,
  installFromRegistry,
  removeLanguage,
  type InstalledLanguageNote,
} from '../../core/ocr/language-install.js';
import { installedLanguages, languageModelFile, languagesDirOf } from '../../core/ocr/ocr-languages.js';
import { action, CliError } from '../fail.js';
import { settingsFor, type CommonFlags } from '../owner.js';
import { err, note, out, print, table } from '../term.js';

interface AddFlags extends CommonFlags {
  from?: string;
  registry?: string;
  force?: boolean;
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** What to try next when an install fails, by its code (fail.ts prints `hint`). */
const HINTS: Record<string, string> = {
  LANGUAGE_DOWNLOAD_FAILED: 'check the network, or pass --registry for a mirror; offline: --from a copy of the package or a .traineddata file',
  FETCH_FAILED: 'check the network, or pass --registry for a mirror; offline: --from a copy of the package or a .traineddata file',
  LANGUAGE_CHECKSUM_MISMATCH: 'the download was altered on the way; try again, or use --from with a copy you trust',
  LANGUAGE_SOURCE_INVALID: 'give the package folder or .tgz (npm pack @tesseract.js-data/CODE), or a CODE.traineddata[.gz] file',
};

function withHint(e: unknown): never {
  const code = (e as { code?: string }).code ?? '';
  throw Object.assign(e as object, HINTS[code] ? { hint: HINTS[code] } : {});
}

/** Codes checked before anything is fetched: one unknown code stops the whole command (exit 2). */
function knownCodes(codes: string[]): void {
  const unknown = codes.filter((c) => !languageInfo(c));
  if (unknown.length === 0) return;
  throw new CliError('INVALID_VALUE', `unknown OCR language ${unknown.join(', ')}`, `known: ${knownLanguageCodes().join(', ')} (lectern languages list)`, { unknown });
}

function languagesDir(flags: CommonFlags): string {
  return languagesDirOf(settingsFor(flags).data_dir);
}

async function list(flags: CommonFlags): Promise<void> {
  const dir = languagesDir(flags);
  const installed = new Set(installedLanguages(dir));
  const rows = await Promise.all(
    LANGUAGE_CATALOG.map(async (l) => {
      const file = languageModelFile(l.code, dir);
      const noteOf = file && !BUNDLED_LANGUAGES.includes(l.code) ? await installedNote(dir, l.code) : null;
      return {
        code: l.code,
        name: l.name,
        script: l.script,
        rtl: l.rtl,
        installed: installed.has(l.code),
        bundled: BUNDLED_LANGUAGES.includes(l.code) && !file?.startsWith(dir),
        file,
        package: noteOf?.package ?? null,
        bytes: noteOf?.bytes ?? null,
        source: noteOf?.source ?? null,
        install: installed.has(l.code) ? null : l.npm === false ? (l.localHint ?? null) : `lectern languages add ${l.code}`,
      };
    }),
  );
  // A model added from a file under a code the catalogue does not list still counts (a job may name it).
  const extra = [...installed].filter((c) => !languageInfo(c));
  if (flags.json) return print(JSON.stringify({ languages_dir: dir, languages: rows, other_installed: extra }));
  const lines = table(
    ['CODE', 'LANGUAGE', 'SCRIPT', 'STATE'],
    rows.map((r) => [
      r.code,
      r.name,
      `${r.script}${r.rtl ? ' (right to left)' : ''}`,
      r.installed ? (r.bundled ? out.green('installed (bundled)') : out.green(`installed${r.bytes ? ` (${mib(r.bytes)})` : ''}`)) : out.dim(r.install ?? 'not installed'),
    ]),
  );
  for (const l of lines) print(l);
  if (extra.length) print(`also installed: ${extra.join(', ')}`);
  note(err.dim(`languages folder: ${dir}; a job reads with several at once: ocr_language=eng+deu`));
}

async function add(codes: string[], flags: AddFlags): Promise<void> {
  knownCodes(codes);
  if (flags.from && codes.length !== 1) throw new CliError('USAGE', '--from installs one language at a time', 'lectern languages add deu --from ./deu.traineddata.gz');
  const settings = settingsFor(flags);
  const dir = languagesDirOf(settings.data_dir);
  const net = createGuardedFetch(netPolicyOf(settings));
  const results: Array<InstalledLanguageNote | { code: string; already: true }> = [];
  for (const code of codes) {
    const info = languageInfo(code);
    if (!flags.force && !flags.from && languageModelFile(code, dir)) {
      results.push({ code, already: true });
      if (!flags.json) print(`${code} is already installed (--force installs it again)`);
      continue;
    }
    if (!flags.from && info?.npm === false) {
      throw new CliError('LANGUAGE_NOT_ON_REGISTRY', `${info.name} (${code}) is not on the npm registry`, info.localHint);
    }
    if (!flags.json) note(err.dim(flags.from ? `${code}: installing from ${flags.from}` : `${code}: fetching @tesseract.js-data/${code} from ${flags.registry ?? DEFAULT_NPM_REGISTRY}`));
    const installed = await (flags.from ? installFromPath(code, dir, flags.from) : installFromRegistry({ code, dir, net, registry: flags.registry })).catch(withHint);
    results.push(installed);
    if (!flags.json) print(`${err.green('✔')} ${code} (${info?.name ?? code}) installed: ${mib(installed.bytes)}${installed.package ? `, ${installed.package}` : ''}`);
  }
  if (flags.json) print(JSON.stringify({ languages_dir: dir, installed: results }));
  else note(err.dim(`a new upload can use ${codes.length > 1 ? 'them' : 'it'} now (no restart): ocr_language=eng+${codes[0]}`));
}

async function remove(codes: string[], flags: CommonFlags): Promise<void> {
  const dir = languagesDir(flags);
  const removed: string[] = [];
  const absent: string[] = [];
  for (const code of codes) ((await removeLanguage(dir, code)) ? removed : absent).push(code);
  if (flags.json) print(JSON.stringify({ removed, not_installed: absent }));
  else {
    if (removed.length) print(`removed ${removed.join(', ')}`);
    if (absent.length) print(`not installed in ${dir}: ${absent.join(', ')}${absent.some((c) => BUNDLED_LANGUAGES.includes(c)) ? ' (English ships with the app and stays)' : ''}`);
  }
  if (absent.length) process.exitCode = 1;
}

const EXAMPLES = `
Examples:
  $ lectern languages list                          # every language, installed or how to add it
  $ lectern languages add deu fra                   # from the npm registry (@tesseract.js-data/deu, …)
  $ lectern languages add ara --from ./ara-1.0.0.tgz  # offline: npm pack @tesseract.js-data/ara elsewhere
  $ lectern languages add rus --from /usr/share/tesseract-ocr/5/tessdata/rus.traineddata
  $ lectern languages remove fra
  $ curl -H "X-API-Key: $KEY" -F file=@scan.pdf -F ocr_language=eng+deu http://127.0.0.1:8000/jobs

Models go to <data_dir>/ocr-languages; a running server uses them from its next job.
Exit status: 0 done, 1 failed (download, checksum, not installed), 2 wrong usage (unknown code).`;

/** `lectern languages list | add | remove`: the OCR languages a job can read with. */
export function addLanguagesCommands(program: Command): void {
  const languages = program
    .command('languages')
    .description('OCR languages: list them, add one from the npm registry (or a local copy), remove one')
    .addHelpText('after', EXAMPLES);
  const common = (c: Command) =>
    c
      .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
      .option('--data-dir <dir>', 'data directory whose ocr-languages/ folder to use')
      .option('--json', 'print JSON');
  common(languages.command('list').description('every known OCR language and whether it is installed')).action(action('languages list', list));
  common(
    languages
      .command('add <codes...>')
      .description('install OCR languages (tesseract codes: deu, fra, ara, chi_sim, …) from the npm registry')
      .option('--from <path>', 'install from a local copy: the package folder or .tgz, or a .traineddata[.gz] file')
      .option('--registry <url>', `npm registry to fetch from (default ${DEFAULT_NPM_REGISTRY})`)
      .option('--force', 'install again even when installed'),
  ).action(action('languages add', add));
  common(languages.command('remove <codes...>').description('remove OCR languages added to the data folder')).action(action('languages remove', remove));
}
