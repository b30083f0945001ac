/**
 * Measures what every member of a ZIP (a DOCX, or any OOXML package) really inflates to before a reader
 * that holds members whole in memory (mammoth, through JSZip) opens it. The sizes a ZIP declares are not
 * trusted: each member is inflated as a stream, counted and dropped, and stopped as soon as it crosses a
 * limit, so measuring a bomb costs a part limit's worth of CPU and next to no memory. Members that share
 * their data (the overlapping-entry bomb) are counted once per entry, as a reader would inflate them.
 */
import { createInflateRaw } from 'node:zlib';
import { checkParseSize } from '../heap-guard.js';
import { formatBytes, limitError, type DocumentLimits } from '../limits.js';
import { CENTRAL_SIG, findEndRecord, LOCAL_SIG } from './docx-zip.js';

/** Heap mammoth (JSZip, then xmldom) takes per byte of the XML it parses: 200-400 MB for 10 MB of paragraphs. */
const XML_HEAP_PER_BYTE = 32;

interface Member {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD64_LOCATOR_SIG = 0x07064b50;
const EOCD64_SIG = 0x06064b50;

/** Where the central directory starts and how many entries it has, ZIP64 included; null if unreadable. */
function centralDirectory(dv: DataView): { at: number; count: number } | null {
  const eocd = findEndRecord(dv);
  if (eocd < 0) return null;
  let count = dv.getUint16(eocd + 10, true);
  let at = dv.getUint32(eocd + 16, true);
  const locator = eocd - 20;
  if ((count === 0xffff || at === 0xffffffff) && locator >= 0 && dv.getUint32(locator, true) === EOCD64_LOCATOR_SIG) {
    const end64 = Number(dv.getBigUint64(locator + 8, true));
    if (end64 + 56 > dv.byteLength || dv.getUint32(end64, true) !== EOCD64_SIG) return null;
    count = Number(dv.getBigUint64(end64 + 32, true));
    at = Number(dv.getBigUint64(end64 + 48, true));
  }
  return { at, count };
}

/** The entry's sizes and offset, taking the ZIP64 extra field's values where the 32-bit ones are saturated. */
function readMember(dv: DataView, at: number, decoder: TextDecoder): { member: Member; next: number } | null {
  if (at + 46 > dv.byteLength || dv.getUint32(at, true) !== CENTRAL_SIG) return null;
  const nameLength = dv.getUint16(at + 28, true);
  const extraLength = dv.getUint16(at + 30, true);
  const member: Member = {
    name: decoder.decode(
      new Uint8Array(dv.buffer, dv.byteOffset + at + 46, Math.min(nameLength, dv.byteLength - at - 46)),
    ),
    method: dv.getUint16(at + 10, true),
    compressedSize: dv.getUint32(at + 20, true),
    size: dv.getUint32(at + 24, true),
    localOffset: dv.getUint32(at + 42, true),
  };
  for (let e = at + 46 + nameLength; e + 4 <= Math.min(dv.byteLength, at + 46 + nameLength + extraLength); ) {
    const id = dv.getUint16(e, true);
    const length = dv.getUint16(e + 2, true);
    if (id === 0x0001) {
      let f = e + 4;
      const take = () => {
        const v = f + 8 <= dv.byteLength ? Number(dv.getBigUint64(f, true)) : 0;
        f += 8;
        return v;
      };
      if (member.size === 0xffffffff) member.size = take();
      if (member.compressedSize === 0xffffffff) member.compressedSize = take();
      if (member.localOffset === 0xffffffff) member.localOffset = take();
    }
    e += 4 + length;
  }
  return { member, next: at + 46 + nameLength + extraLength + dv.getUint16(at + 32, true) };
}

/** Bytes `raw` (a raw deflate stream) inflates to, counting no further than just past `cap`. */
function inflatedSize(raw: Uint8Array, cap: number): Promise<number> {
  return new Promise((resolve) => {
    const z = createInflateRaw({ chunkSize: 1024 * 1024 });
    let n = 0;
    z.on('data', (chunk: Buffer) => {
      n += chunk.length;
      if (n > cap) {
        z.destroy();
        resolve(n);
      }
    });
    z.on('end', () => resolve(n));
    // A damaged member is the reader's to report; what it inflated so far still counts.
    z.on('error', () => resolve(n));
    z.end(raw);
  });
}

/**
 * Which members a reader holds in memory as parsed XML, and the heap that takes per byte of them. mammoth
 * (the default) holds every part; a streaming reader (spreadsheets, slides) only the few it keeps whole.
 */
export interface HeldXml {
  held: (name: string) => boolean;
  heapPerByte: number;
}

const MAMMOTH_XML: HeldXml = { held: (name) => /\.(?:xml|rels)$/i.test(name), heapPerByte: XML_HEAP_PER_BYTE };

/**
 * Throws DECOMPRESSED_TOO_LARGE when a member inflates past `maxDecompressedPartBytes` or all of them past
 * `maxDecompressedBytes`, and OUT_OF_MEMORY when its XML is more than the thread's heap can parse (see
 * heap-guard.ts). An archive whose directory cannot be read is left to the reader, which fails on it.
 */
export async function checkZipInflation(
  data: Uint8Array,
  limits: Pick<DocumentLimits, 'maxDecompressedBytes' | 'maxDecompressedPartBytes'>,
  xmlHeap: HeldXml = MAMMOTH_XML,
): Promise<void> {
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const dir = centralDirectory(dv);
  if (!dir) return;
  const decoder = new TextDecoder();
  let total = 0;
  let xml = 0;
  let at = dir.at;
  for (let i = 0; i < dir.count; i++) {
    const read = readMember(dv, at, decoder);
    if (!read) return;
    at = read.next;
    const { member } = read;
    const local = member.localOffset;
    if (local + 30 > data.length || dv.getUint32(local, true) !== LOCAL_SIG) continue;
    const start = local + 30 + dv.getUint16(local + 26, true) + dv.getUint16(local + 28, true);
    const raw = data.subarray(start, Math.min(data.length, start + member.compressedSize));
    const cap = Math.min(limits.maxDecompressedPartBytes, limits.maxDecompressedBytes - total);
    const size = member.method === 8 ? await inflatedSize(raw, cap) : member.method === 0 ? raw.length : 0;
    if (size > limits.maxDecompressedPartBytes) {
      throw limitError(
        'DECOMPRESSED_TOO_LARGE',
        `${member.name} inflates to more than ${formatBytes(limits.maxDecompressedPartBytes)} (setting max_decompressed_part_bytes)`,
      );
    }
    total += size;
    if (xmlHeap.held(member.name)) xml += size;
    if (total > limits.maxDecompressedBytes) {
      throw limitError(
        'DECOMPRESSED_TOO_LARGE',
        `the package inflates to more than ${formatBytes(limits.maxDecompressedBytes)} in all (setting max_decompressed_bytes)`,
      );
    }
  }
  checkParseSize(xml, xmlHeap.heapPerByte, "the package's XML");
}
