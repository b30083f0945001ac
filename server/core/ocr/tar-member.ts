/**
 * Reading one file out of an npm package tarball (a gzipped ustar archive) held in memory. npm packs plain
 * ustar entries (names under `package/`, a pax header at most), so a reader of headers is all it takes; a
 * second copy of a tar library for one file is not worth it.
 */
import { gunzipSync } from 'node:zlib';

const BLOCK = 512;

function field(header: Uint8Array, start: number, length: number): string {
  const raw = Buffer.from(header.subarray(start, start + length)).toString('utf8');
  const nul = raw.indexOf('\0');
  return nul < 0 ? raw : raw.slice(0, nul);
}

export interface TarEntry {
  name: string;
  data: Uint8Array;
}

/** Every regular file of the archive, in order. Throws on an archive cut short. */
export function* tarEntries(tar: Uint8Array): Generator<TarEntry> {
  let at = 0;
  let longName: string | null = null;
  while (at + BLOCK <= tar.length) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) return;
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) throw new Error('not a tar archive (bad entry size)');
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = field(header, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const start = at + BLOCK;
    if (start + size > tar.length) throw new Error('the tar archive is cut short');
    const data = tar.subarray(start, start + size);
    at = start + Math.ceil(size / BLOCK) * BLOCK;
    longName = null;
    if (type === 'x') {
      // A pax header: its `path` record names the next entry.
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(Buffer.from(data).toString('utf8'));
      if (m?.[1]) longName = m[1];
      continue;
    }
    if (type === '0' || type === '\0') yield { name, data };
  }
}

/** The first of `names` found in a gzipped tarball (`.tgz`), with its name, or null. */
export function tgzMember(tgz: Uint8Array, names: readonly string[]): TarEntry | null {
  const tar = gunzipSync(tgz);
  const found = new Map<string, Uint8Array>();
  for (const e of tarEntries(tar)) if (names.includes(e.name)) found.set(e.name, e.data);
  for (const name of names) {
    const data = found.get(name);
    if (data) return { name, data };
  }
  return null;
}
