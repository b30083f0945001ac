/**
 * Installing an OCR language into the data folder (`lectern languages add`): the model comes from its npm
 * package, `@tesseract.js-data/<code>`, fetched from the npm registry through the guarded fetch (the
 * version's manifest names the tarball and its sha512; the tarball is checked against it before anything is
 * written), or, on a machine without the registry, from a local copy: the package's folder or `.tgz`, or a
 * `.traineddata[.gz]` file (Debian's tesseract-ocr-<lang> packages hold those). Only the LSTM model is
 * kept, gzipped, as `<data_dir>/ocr-languages/<code>.traineddata.gz`, with a note of where it came from
 * beside it; both are written under temporary names and renamed, so a running server never sees half a file.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

import type { GuardedFetch } from '../net/types.js';
import { LANGUAGE_PACKAGE_VERSION } from '../language-catalog.js';
import { modelFileName, PACKAGE_DATA_DIRS } from './ocr-languages.js';
import { tgzMember } from './tar-member.js';

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org';

/** The largest package tarball read (chi_sim, the largest asked for, is ~23 MB with both of its models). */
const MAX_TARBALL_BYTES = 200 * 2 ** 20;

export interface InstalledLanguageNote {
  code: string;
  /** `@tesseract.js-data/<code>@<version>`, or null for a bare model file. */
  package: string | null;
  /** The registry tarball's URL, or the local path installed from. */
  source: string;
  /** The tarball's integrity as the registry states it and as checked (registry installs only). */
  integrity: string | null;
  /** sha256 of the installed (gzipped) model file, and its size. */
  sha256: string;
  bytes: number;
  installed_at: string;
}

export type InstallErrorCode = 'LANGUAGE_DOWNLOAD_FAILED' | 'LANGUAGE_CHECKSUM_MISMATCH' | 'LANGUAGE_SOURCE_INVALID';

function installError(code: InstallErrorCode, message: string, details?: unknown): Error & { code: InstallErrorCode } {
  return Object.assign(new Error(message), { code, details });
}

const packageName = (code: string): string => `@tesseract.js-data/${code}`;

/** Names of the model inside a package, preferred first (the LSTM-only model, see ocr-languages.ts). */
const memberNames = (code: string, root: string): string[] =>
  PACKAGE_DATA_DIRS.map((d) => `${root}${d}/${modelFileName(code)}`);

/**
 * A tesseract model: a gzipped one is unpacked to check it. A `.traineddata` file begins with its count of
 * components (a little-endian int32, 1..100) followed by that many offsets; anything else (an HTML error
 * page, a truncated download) is refused here rather than failing every OCR job later.
 */
function checkedModel(bytes: Uint8Array, what: string): Uint8Array {
  const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
  let raw: Uint8Array;
  try {
    raw = gz ? gunzipSync(bytes) : bytes;
  } catch (err) {
    throw installError('LANGUAGE_SOURCE_INVALID', `${what} is not a readable gzip file: ${(err as Error).message}`);
  }
  const view = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const entries = raw.length >= 8 ? view.readInt32LE(0) : 0;
  if (entries < 1 || entries > 100 || raw.length < 4 + entries * 8 + 1024) {
    throw installError('LANGUAGE_SOURCE_INVALID', `${what} is not a tesseract .traineddata model`);
  }
  return gz ? bytes : gzipSync(raw);
}

async function writeInstalled(
  dir: string,
  code: string,
  model: Uint8Array,
  note: Omit<InstalledLanguageNote, 'sha256' | 'bytes' | 'installed_at' | 'code'>,
): Promise<InstalledLanguageNote> {
  await mkdir(dir, { recursive: true });
  const full: InstalledLanguageNote = {
    code,
    ...note,
    sha256: createHash('sha256').update(model).digest('hex'),
    bytes: model.length,
    installed_at: new Date().toISOString(),
  };
  const tmp = path.join(dir, `.${code}.${randomUUID()}.tmp`);
  try {
    await writeFile(`${tmp}.json`, `${JSON.stringify(full, null, 2)}\n`);
    await writeFile(tmp, model);
    // The note first: a model file never stands without it (list reads the note for the model's source).
    await rename(`${tmp}.json`, path.join(dir, `${code}.json`));
    await rename(tmp, path.join(dir, modelFileName(code)));
  } finally {
    await rm(tmp, { force: true });
    await rm(`${tmp}.json`, { force: true });
  }
  return full;
}

/** `sha512-<base64>` (npm's `dist.integrity`) checked against the bytes. */
function integrityMatches(integrity: string, bytes: Uint8Array): boolean {
  const m = /^sha512-(.+)$/.exec(integrity.trim());
  return !!m && createHash('sha512').update(bytes).digest('base64') === m[1];
}

export interface RegistryInstallOptions {
  code: string;
  dir: string;
  net: GuardedFetch;
  /** The npm registry's base URL (default registry.npmjs.org; a mirror's works the same). */
  registry?: string;
  version?: string;
  signal?: AbortSignal;
}

/** Downloads the language's package from the npm registry, checks it, installs its model. */
export async function installFromRegistry(opts: RegistryInstallOptions): Promise<InstalledLanguageNote> {
  const { code, dir, net } = opts;
  const registry = (opts.registry ?? DEFAULT_NPM_REGISTRY).replace(/\/+$/, '');
  const version = opts.version ?? LANGUAGE_PACKAGE_VERSION;
  const pkg = packageName(code);
  const manifestUrl = `${registry}/${pkg.replace('/', '%2f')}/${version}`;
  const res = await net(manifestUrl, { signal: opts.signal, headers: { accept: 'application/json' } });
  // An unread error body would hold the connection (and the command's process) open.
  if (res.status !== 200) await res.body?.cancel().catch(() => undefined);
  if (res.status === 404) {
    throw installError('LANGUAGE_DOWNLOAD_FAILED', `the registry ${registry} has no ${pkg}@${version}`, {
      url: manifestUrl,
      status: 404,
    });
  }
  if (res.status !== 200)
    throw installError('LANGUAGE_DOWNLOAD_FAILED', `the registry answered ${res.status} for ${pkg}@${version}`, {
      url: manifestUrl,
      status: res.status,
    });
  // A registry may answer JSON that is no object (null): refused below like a manifest without a tarball.
  const manifest = (await res.json()) as { dist?: { tarball?: unknown; integrity?: unknown } } | null;
  const tarball = manifest?.dist?.tarball;
  const integrity = manifest?.dist?.integrity;
  if (typeof tarball !== 'string' || typeof integrity !== 'string') {
    throw installError(
      'LANGUAGE_DOWNLOAD_FAILED',
      `the registry's manifest of ${pkg}@${version} names no tarball with an integrity`,
      { url: manifestUrl },
    );
  }
  const tgzRes = await net(tarball, { signal: opts.signal, maxBytes: MAX_TARBALL_BYTES, totalTimeoutMs: 0 });
  if (tgzRes.status !== 200) await tgzRes.body?.cancel().catch(() => undefined);
  if (tgzRes.status !== 200)
    throw installError('LANGUAGE_DOWNLOAD_FAILED', `the registry answered ${tgzRes.status} for ${tarball}`, {
      url: tarball,
      status: tgzRes.status,
    });
  const tgz = await tgzRes.bytes();
  if (!integrityMatches(integrity, tgz)) {
    throw installError(
      'LANGUAGE_CHECKSUM_MISMATCH',
      `${tarball} does not match the integrity the registry states for ${pkg}@${version}`,
      { url: tarball, integrity },
    );
  }
  const member = tgzMember(tgz, memberNames(code, 'package/'));
  if (!member) throw installError('LANGUAGE_SOURCE_INVALID', `${pkg}@${version} holds no ${modelFileName(code)}`);
  const model = checkedModel(member.data, `${member.name} of ${pkg}@${version}`);
  return writeInstalled(dir, code, model, { package: `${pkg}@${version}`, source: tarball, integrity });
}

/**
 * Installs from a local copy: the package's folder (as npm leaves it in node_modules) or its `.tgz` (as
 * `npm pack` writes it), or a `<code>.traineddata` / `.traineddata.gz` file.
 */
export async function installFromPath(code: string, dir: string, from: string): Promise<InstalledLanguageNote> {
  const source = path.resolve(from);
  const info = await stat(source).catch(() => null);
  if (!info) throw installError('LANGUAGE_SOURCE_INVALID', `${source} does not exist`);
  let model: Uint8Array | null = null;
  let pkg: string | null = null;
  if (info.isDirectory()) {
    for (const name of [...memberNames(code, ''), modelFileName(code), `${code}.traineddata`]) {
      const bytes = await readFile(path.join(source, name)).catch(() => null);
      if (bytes) {
        model = checkedModel(bytes, path.join(source, name));
        break;
      }
    }
    const manifest = await readFile(path.join(source, 'package.json'), 'utf8')
      .then((t) => JSON.parse(t) as { name?: unknown; version?: unknown })
      .catch(() => null);
    if (manifest?.name === packageName(code) && typeof manifest.version === 'string')
      pkg = `${manifest.name}@${manifest.version}`;
    if (!model) {
      const have = (await readdir(source)).slice(0, 10).join(', ');
      throw installError(
        'LANGUAGE_SOURCE_INVALID',
        `${source} holds no ${modelFileName(code)} (nor ${code}.traineddata; it has ${have || 'nothing'})`,
      );
    }
  } else {
    const bytes = await readFile(source);
    const isTgz = /\.(tgz|tar\.gz)$/i.test(source);
    if (isTgz) {
      const member = tgzMember(bytes, memberNames(code, 'package/'));
      if (!member)
        throw installError(
          'LANGUAGE_SOURCE_INVALID',
          `${source} holds no package/${PACKAGE_DATA_DIRS[0]}/${modelFileName(code)}`,
        );
      model = checkedModel(member.data, `${member.name} of ${source}`);
    } else {
      model = checkedModel(bytes, source);
    }
  }
  return writeInstalled(dir, code, model, { package: pkg, source, integrity: null });
}

/** The note written beside an installed model, or null for a model without one (or the bundled English). */
export async function installedNote(dir: string, code: string): Promise<InstalledLanguageNote | null> {
  try {
    return JSON.parse(await readFile(path.join(dir, `${code}.json`), 'utf8')) as InstalledLanguageNote;
  } catch {
    return null;
  }
}

/** Removes a language from the data folder; false when it was not there. The bundled English stays. */
export async function removeLanguage(dir: string, code: string): Promise<boolean> {
  const file = path.join(dir, modelFileName(code));
  const had = await stat(file)
    .then(() => true)
    .catch(() => false);
  // The model first: once it is gone the language counts as not installed, whatever happens to the note.
  await rm(file, { force: true });
  await rm(path.join(dir, `${code}.json`), { force: true });
  return had;
}
