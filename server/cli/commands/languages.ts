import { resolve } from 'node:path';
import type { Command } from 'commander';
import { netPolicyOf } from '../../config/net-policy.js';
import { createGuardedFetch } from '../../core/net/guarded-fetch.js';
import { addLanguage, languageList, removeAddedLanguage, type AddedLanguage } from '../../core/ocr/language-admin.js';
import { BUNDLED_LANGUAGES, knownLanguageCodes, languageInfo } from '../../core/language-catalog.js';
import { DEFAULT_NPM_REGISTRY } from '../../core/ocr/language-install.js';
import { languageModelFile, languagesDirOf } from '../../core/ocr/ocr-languages.js';
import type { ApiClient } from '../client.js';
import { action, CliError } from '../fail.js';
import { examples } from '../help-text.js';
import { asOwner, commonFlags, settingsFor, type CommonFlags } from '../owner.js';
import { err, mib, note, out, print, table } from '../term.js';

interface AddFlags extends CommonFlags {
  from?: string;
  registry?: string;
  force?: boolean;
}

/** What to try next when an install fails, by its code (fail.ts prints `hint`). */
const HINTS: Record<string, string> = {
  LANGUAGE_DOWNLOAD_FAILED:
    'check the network, or pass --registry for a mirror; offline: --from a copy of the package or a .traineddata file',
  FETCH_FAILED:
    'check the network, or pass --registry for a mirror; offline: --from a copy of the package or a .traineddata file',
  LANGUAGE_CHECKSUM_MISMATCH: 'the download was altered on the way; try again, or use --from with a copy you trust',
  LANGUAGE_SOURCE_INVALID:
    'give the package folder or .tgz (npm pack @tesseract.js-data/CODE), or a CODE.traineddata[.gz] file',
};

function withHint(e: unknown): never {
  const { code = '', details } = e as { code?: string; details?: { install?: unknown } };
  // A language not on the registry: its catalogue entry says where a local copy comes from.
  const hint =
    code === 'LANGUAGE_NOT_ON_REGISTRY' && typeof details?.install === 'string' ? details.install : HINTS[code];
  throw Object.assign(e as object, hint ? { hint } : {});
}

/** Codes checked before anything is fetched: one unknown code stops the whole command (exit 2). */
function knownCodes(codes: string[]): void {
  const unknown = codes.filter((c) => !languageInfo(c));
  if (unknown.length === 0) return;
  throw new CliError(
    'INVALID_VALUE',
    `unknown OCR language ${unknown.join(', ')}`,
    `known: ${knownLanguageCodes().join(', ')} (lectern languages list)`,
    { unknown },
  );
}

/** What `add` and `remove` do to the folder's languages, the same whether its server does it or this process. */
interface Languages {
  dir: string;
  add(code: string, how: { from?: string; registry?: string; force?: boolean }): Promise<AddedLanguage>;
  /** false: the folder holds no model of it. */
  remove(code: string): Promise<boolean>;
}

const overHttp = (client: ApiClient, dir: string): Languages => ({
  dir,
  // The server reads a local copy itself (inside its document_roots): it gets the path whole.
  add: (code, how) =>
    client.post(`/ocr-languages/${encodeURIComponent(code)}`, {
      ...(how.from ? { from: resolve(how.from) } : how.registry ? { registry: how.registry } : {}),
      ...(how.force ? { force: true } : {}),
    }),
  remove: async (code) => {
    try {
      await client.del(`/ocr-languages/${encodeURIComponent(code)}`);
      return true;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'OCR_LANGUAGE_NOT_INSTALLED') return false;
      throw e;
    }
  },
});

/**
 * Only the folder's owner writes its languages: with a server running, through its admin routes (its key
 * as every command finds it; its outbound rules and document_roots apply); otherwise here, under the lock.
 */
async function withLanguages(
  flags: CommonFlags,
  command: string,
  use: (languages: Languages) => Promise<void>,
): Promise<void> {
  const settings = settingsFor(flags);
  const dir = languagesDirOf(settings.data_dir);
  await asOwner(
    settings,
    command,
    (client) => use(overHttp(client, dir)),
    () => {
      const net = createGuardedFetch(netPolicyOf(settings));
      return use({
        dir,
        add: (code, how) => addLanguage({ code, dir, net, ...how }),
        remove: (code) => removeAddedLanguage(dir, code),
      });
    },
  );
}

/** A read: the folder as it is now, whoever owns it. */
async function list(flags: CommonFlags): Promise<void> {
  const {
    languages_dir: dir,
    languages: rows,
    other_installed: extra,
  } = await languageList(languagesDirOf(settingsFor(flags).data_dir));
  if (flags.json) return print(JSON.stringify({ languages_dir: dir, languages: rows, other_installed: extra }));
  const lines = table(
    ['CODE', 'LANGUAGE', 'SCRIPT', 'STATE'],
    rows.map((r) => [
      r.code,
      r.name,
      `${r.script}${r.rtl ? ' (right to left)' : ''}`,
      r.installed
        ? r.bundled
          ? out.green('installed (bundled)')
          : out.green(`installed${r.bytes ? ` (${mib(r.bytes)})` : ''}`)
        : out.dim(r.install ?? 'not installed'),
    ]),
  );
  for (const l of lines) print(l);
  if (extra.length) print(`also installed: ${extra.join(', ')}`);
  note(err.dim(`languages folder: ${dir}; a job reads with several at once: ocr_language=eng+deu`));
}

async function add(codes: string[], flags: AddFlags): Promise<void> {
  knownCodes(codes);
  if (flags.from && codes.length !== 1)
    throw new CliError(
      'USAGE',
      '--from installs one language at a time',
      'lectern languages add deu --from ./deu.traineddata.gz',
    );
  await withLanguages(flags, 'languages add', async (languages) => {
    const results: AddedLanguage[] = [];
    for (const code of codes) {
      const info = languageInfo(code);
      // Nothing is fetched for a language installed already (the server judges the same folder).
      const already = !flags.force && !flags.from && languageModelFile(code, languages.dir);
      if (!flags.json && !already && (flags.from || info?.npm !== false)) {
        note(
          err.dim(
            flags.from
              ? `${code}: installing from ${flags.from}`
              : `${code}: fetching @tesseract.js-data/${code} from ${flags.registry ?? DEFAULT_NPM_REGISTRY}`,
          ),
        );
      }
      const added = await languages
        .add(code, { from: flags.from, registry: flags.registry, force: flags.force })
        .catch(withHint);
      results.push(added);
      if (flags.json) continue;
      if ('already' in added) print(`${code} is already installed (--force installs it again)`);
      else
        print(
          `${err.green('✔')} ${code} (${info?.name ?? code}) installed: ${mib(added.bytes)}${added.package ? `, ${added.package}` : ''}`,
        );
    }
    if (flags.json) print(JSON.stringify({ languages_dir: languages.dir, installed: results }));
    else
      note(
        err.dim(
          `a new upload can use ${codes.length > 1 ? 'them' : 'it'} now (no restart): ocr_language=eng+${codes[0]}`,
        ),
      );
  });
}

async function remove(codes: string[], flags: CommonFlags): Promise<void> {
  await withLanguages(flags, 'languages remove', async (languages) => {
    const removed: string[] = [];
    const absent: string[] = [];
    for (const code of codes) ((await languages.remove(code)) ? removed : absent).push(code);
    if (flags.json) print(JSON.stringify({ removed, not_installed: absent }));
    else {
      if (removed.length) print(`removed ${removed.join(', ')}`);
      if (absent.length)
        print(
          `not installed in ${languages.dir}: ${absent.join(', ')}${absent.some((c) => BUNDLED_LANGUAGES.includes(c)) ? ' (English ships with the app and stays)' : ''}`,
        );
    }
    if (absent.length) process.exitCode = 1;
  });
}

const EXAMPLES = `
Examples:
  $ lectern languages list                          # every language, installed or how to add it
  $ lectern languages add deu fra                   # from the npm registry (@tesseract.js-data/deu, …)
  $ lectern languages add ara --from ./ara-1.0.0.tgz  # offline: npm pack @tesseract.js-data/ara elsewhere
  $ lectern languages add rus --from /usr/share/tesseract-ocr/5/tessdata/rus.traineddata
  $ lectern languages remove fra
  $ curl -H "X-API-Key: $KEY" -F file=@scan.pdf -F ocr_language=eng+deu http://127.0.0.1:8000/jobs

Models go to <data_dir>/ocr-languages; a running server uses them from its next job. While a server
owns the data folder (lectern serve, the app), add and remove go through it: its key (SERVICE_API_KEY),
its allowed_private_hosts for --registry, and --from inside its document_roots.
Exit status: 0 done, 1 failed (download, checksum, not installed), 2 wrong usage (unknown code).`;

/** `lectern languages list | add | remove`: the OCR languages a job can read with. */
export function addLanguagesCommands(program: Command): void {
  const languages = program
    .command('languages')
    .description('OCR languages: list them, add one from the npm registry (or a local copy), remove one')
    .addHelpText('after', EXAMPLES);
  const common = (c: Command) => commonFlags(c, 'data directory whose ocr-languages/ folder to use');
  common(
    languages
      .command('list')
      .description('every known OCR language and whether it is installed')
      .addHelpText(
        'after',
        examples(
          'lectern languages list',
          "lectern languages list --json | jq -r '.languages[] | select(.installed) | .code'",
        ),
      ),
  ).action(action('languages list', list));
  common(
    languages
      .command('add <codes...>')
      .description('install OCR languages (tesseract codes: deu, fra, ara, chi_sim, …) from the npm registry')
      .option('--from <path>', 'install from a local copy: the package folder or .tgz, or a .traineddata[.gz] file')
      .option('--registry <url>', `npm registry to fetch from (default ${DEFAULT_NPM_REGISTRY})`)
      .option('--force', 'install again even when installed')
      .addHelpText(
        'after',
        examples(
          'lectern languages add deu fra                                      # from the npm registry',
          'lectern languages add ara --from ./ara-1.0.0.tgz                   # offline: a package made by npm pack',
          'lectern languages add rus --from /usr/share/tesseract-ocr/5/tessdata/rus.traineddata',
          'lectern languages add deu --registry http://npm.internal:4873 --force',
        ),
      ),
  ).action(action('languages add', add));
  common(
    languages
      .command('remove <codes...>')
      .description('remove OCR languages added to the data folder')
      .addHelpText('after', examples('lectern languages remove fra', 'lectern languages remove deu ara --json')),
  ).action(action('languages remove', remove));
}
