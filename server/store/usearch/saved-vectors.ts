/**
 * Reading the vectors of a saved USearch file by key. The Node binding can add, search and remove but not
 * hand a stored vector back, and copying a library to another store (`lectern migrate`) needs the vectors
 * as they were embedded, not embedded again. The file's layout is USearch's `index_dense_gt::save_to_stream`
 * (include/usearch/index_dense.hpp and index.hpp of the installed package):
 *
 *   u32 rows, u32 bytes per vector | rows × vector bytes (slot order)
 *   64-byte head: "usearch", 3 × u16 version, u8 metric, u8 scalar, u8 key kind, u8 slot kind,
 *                 u64 present, u64 deleted, u64 dimensions, u8 multi
 *   graph: 5 × u64 (size, connectivity, connectivity_base, max_level, entry_slot) | size × i16 level |
 *          size nodes: u64 key, i16 level, then neighbour lists (u32 count + slots) for levels 0..level
 *
 * A removed vector keeps its slot with the key set to the "free" value (all ones), so it is skipped here.
 * Only the key → slot map is kept in memory (a few MB at 100,000 vectors); vectors are read from the file
 * as they are asked for, so a large collection is never read whole.
 */
import { closeSync, openSync, readSync } from 'node:fs';

const MAGIC = 'usearch';
const HEAD_BYTES = 64;
const GRAPH_HEAD_BYTES = 40;
const FREE_KEY = 0xffff_ffff_ffff_ffffn;
/** USearch's scalar_kind_t codes for the kinds Lectern stores (index_plugins.hpp). */
const SCALAR = { f32: 11, f16: 12, i8: 23 } as const;
/** Bytes of a compressed slot by its scalar kind (u32, u40, u64). */
const SLOT_BYTES: Record<number, number> = { 15: 4, 2: 5, 14: 8 };

export class SavedIndexFormatError extends Error {
  readonly code = 'INDEX_MISMATCH';
}

export interface SavedVectors {
  readonly dimensions: number;
  readonly size: number;
  /** The vectors under these keys, widened to float32; keys the file does not hold are left out. */
  read(keys: readonly number[]): Map<number, Float32Array>;
  close(): void;
}

/** Positioned reads through a window, so walking the nodes in order costs a read per megabyte, not per node. */
function windowedReader(fd: number, windowBytes = 1 << 20) {
  let start = 0;
  let buf = Buffer.alloc(0);
  return (offset: number, length: number): Buffer => {
    if (offset < start || offset + length > start + buf.length) {
      buf = Buffer.alloc(Math.max(windowBytes, length));
      const got = readSync(fd, buf, 0, buf.length, offset);
      buf = buf.subarray(0, got);
      start = offset;
      if (got < length) throw new SavedIndexFormatError(`the index file ends at ${offset + got}, inside a record`);
    }
    return buf.subarray(offset - start, offset - start + length);
  };
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function decoder(scalar: number, dimensions: number): (bytes: Buffer) => Float32Array {
  if (scalar === SCALAR.f32)
    return (b) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + dimensions * 4));
  if (scalar === SCALAR.f16)
    return (b) => Float32Array.from({ length: dimensions }, (_, i) => halfToFloat(b.readUInt16LE(i * 2)));
  // USearch keeps i8 as value × 127 (cosine only needs the direction, so the scale is never restored).
  if (scalar === SCALAR.i8) return (b) => Float32Array.from({ length: dimensions }, (_, i) => b.readInt8(i) / 127);
  throw new SavedIndexFormatError(`the index holds scalars of USearch kind ${scalar}, which Lectern does not read`);
}

/** Opens a saved index file for reading vectors by key; throws SavedIndexFormatError for a file laid out otherwise. */
export function openSavedVectors(path: string): SavedVectors {
  const fd = openSync(path, 'r');
  try {
    const at = windowedReader(fd);
    // The levels and the nodes are walked side by side: a window each, so neither evicts the other's.
    const levelAt = windowedReader(fd);
    const matrix = at(0, 8);
    const rows = matrix.readUInt32LE(0);
    const vectorBytes = matrix.readUInt32LE(4);
    const headAt = 8 + rows * vectorBytes;
    const head = at(headAt, HEAD_BYTES);
    if (head.toString('latin1', 0, MAGIC.length) !== MAGIC)
      throw new SavedIndexFormatError(`${path} is not a USearch index saved with its vectors`);
    const scalar = head.readUInt8(14);
    const keyKind = head.readUInt8(15);
    const slotBytes = SLOT_BYTES[head.readUInt8(16)];
    const dimensions = Number(head.readBigUInt64LE(33));
    if (keyKind !== 14 || slotBytes === undefined)
      throw new SavedIndexFormatError(`${path} uses keys or slots of a kind Lectern does not write`);
    const decode = decoder(scalar, dimensions);

    const graphAt = headAt + HEAD_BYTES;
    const graph = at(graphAt, GRAPH_HEAD_BYTES);
    const nodes = Number(graph.readBigUInt64LE(0));
    const neighbours = Number(graph.readBigUInt64LE(8)) * slotBytes + 4;
    const neighboursBase = Number(graph.readBigUInt64LE(16)) * slotBytes + 4;
    if (nodes !== rows) throw new SavedIndexFormatError(`${path} has ${rows} vectors but ${nodes} graph nodes`);

    const levelsAt = graphAt + GRAPH_HEAD_BYTES;
    const slotOf = new Map<number, number>();
    let nodeAt = levelsAt + nodes * 2;
    for (let slot = 0; slot < nodes; slot++) {
      const level = levelAt(levelsAt + slot * 2, 2).readInt16LE(0);
      const key = at(nodeAt, 8).readBigUInt64LE(0);
      if (key !== FREE_KEY) slotOf.set(Number(key), slot);
      nodeAt += 10 + neighboursBase + neighbours * level;
    }

    return {
      dimensions,
      size: slotOf.size,
      read(keys) {
        const out = new Map<number, Float32Array>();
        for (const key of keys) {
          const slot = slotOf.get(key);
          if (slot !== undefined) out.set(key, decode(at(8 + slot * vectorBytes, vectorBytes)));
        }
        return out;
      },
      close: () => closeSync(fd),
    };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}
