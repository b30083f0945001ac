/**
 * Just enough ZIP handling to patch one part of a DOCX before mammoth reads it (see docx-math.ts):
 * read an entry, and rebuild the archive with that entry replaced. Other entries are copied as
 * their raw compressed bytes, so images are never inflated. ZIP64 and encrypted archives are not
 * supported; callers then leave the file as it is. The directory reading is shared with the XLSX/PPTX
 * reader (office/ooxml-package.ts) and the inflation guard (zip-guard.ts).
 */
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

interface CentralEntry {
  name: string;
  nameBytes: Uint8Array;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  dataStart: number;
}

export const EOCD_SIG = 0x06054b50;
export const CENTRAL_SIG = 0x02014b50;
export const LOCAL_SIG = 0x04034b50;

function view(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

/** Where the end-of-central-directory record starts, or -1. (It is 22 bytes plus a comment of at most 65535 bytes.) */
export function findEndRecord(dv: DataView): number {
  for (let i = dv.byteLength - 22; i >= Math.max(0, dv.byteLength - 22 - 0xffff); i--)
    if (dv.getUint32(i, true) === EOCD_SIG) return i;
  return -1;
}

/** The central directory's entries, or null when the archive is not a plain (non-ZIP64) ZIP. */
export function readCentralDirectory(data: Uint8Array): CentralEntry[] | null {
  const dv = view(data);
  const eocd = findEndRecord(dv);
  if (eocd < 0) return null;
  const count = dv.getUint16(eocd + 10, true);
  let pos = dv.getUint32(eocd + 16, true);
  if (count === 0xffff || pos === 0xffffffff) return null;
  const entries: CentralEntry[] = [];
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (pos + 46 > data.length || dv.getUint32(pos, true) !== CENTRAL_SIG) return null;
    const nameLength = dv.getUint16(pos + 28, true);
    const nameBytes = data.subarray(pos + 46, pos + 46 + nameLength);
    const local = dv.getUint32(pos + 42, true);
    const compressedSize = dv.getUint32(pos + 20, true);
    if (local + 30 > data.length || dv.getUint32(local, true) !== LOCAL_SIG) return null;
    const dataStart = local + 30 + dv.getUint16(local + 26, true) + dv.getUint16(local + 28, true);
    if (compressedSize === 0xffffffff || dataStart + compressedSize > data.length) return null;
    entries.push({
      name: decoder.decode(nameBytes),
      nameBytes,
      flags: dv.getUint16(pos + 8, true),
      method: dv.getUint16(pos + 10, true),
      crc: dv.getUint32(pos + 16, true),
      compressedSize,
      size: dv.getUint32(pos + 24, true),
      dataStart,
    });
    pos += 46 + nameLength + dv.getUint16(pos + 30, true) + dv.getUint16(pos + 32, true);
  }
  return entries;
}

/** An entry's uncompressed bytes; null if it is missing, encrypted or inflates past `maxBytes`. */
export function readEntry(
  data: Uint8Array,
  entries: CentralEntry[],
  name: string,
  maxBytes: number,
): Uint8Array | null {
  const entry = entries.find((e) => e.name === name);
  if (!entry || entry.flags & 1) return null;
  const raw = data.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  if (entry.method === 0) return raw;
  if (entry.method !== 8) return null;
  try {
    return inflateRawSync(raw, { maxOutputLength: maxBytes });
  } catch {
    return null;
  }
}

/** The archive rebuilt with `name`'s content replaced (deflated); every other entry copied as is. */
export function replaceEntry(data: Uint8Array, entries: CentralEntry[], name: string, content: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const replaced = e.name === name;
    const body = replaced ? deflateRawSync(content) : data.subarray(e.dataStart, e.dataStart + e.compressedSize);
    const method = replaced ? 8 : e.method;
    const crc = replaced ? crc32(content) : e.crc;
    const size = replaced ? content.length : e.size;
    // Sizes and CRC now live in the headers, so the data-descriptor flag (bit 3) is cleared.
    const flags = e.flags & ~0x08;
    const local = new Uint8Array(30 + e.nameBytes.length);
    const lv = view(local);
    lv.setUint32(0, LOCAL_SIG, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, flags, true);
    lv.setUint16(8, method, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, size, true);
    lv.setUint16(26, e.nameBytes.length, true);
    local.set(e.nameBytes, 30);
    const central = new Uint8Array(46 + e.nameBytes.length);
    const cv = view(central);
    cv.setUint32(0, CENTRAL_SIG, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, flags, true);
    cv.setUint16(10, method, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, size, true);
    cv.setUint16(28, e.nameBytes.length, true);
    cv.setUint32(42, offset, true);
    central.set(e.nameBytes, 46);
    parts.push(local, body);
    centrals.push(central);
    offset += local.length + body.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = view(end);
  ev.setUint32(0, EOCD_SIG, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + centralSize + end.length);
  let pos = 0;
  for (const part of [...parts, ...centrals, end]) {
    out.set(part, pos);
    pos += part.length;
  }
  return out;
}
