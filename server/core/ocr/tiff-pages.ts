/**
 * Multi-page TIFF without a TIFF decoder of our own: leptonica (inside tesseract.js) reads the first image
 * of a TIFF only, so page N is handed over as the same bytes with the header's first-IFD pointer moved to
 * page N's IFD. Every strip and tag offset in a TIFF is absolute, so nothing else needs to change.
 */

export function isTiff(data: Uint8Array): boolean {
  return (
    data.length >= 8 &&
    ((data[0] === 0x49 && data[1] === 0x49 && data[2] === 42 && data[3] === 0) ||
      (data[0] === 0x4d && data[1] === 0x4d && data[2] === 0 && data[3] === 42))
  );
}

/** Offsets of every IFD (one per page), in file order; stops at a loop or a pointer outside the file. */
export function tiffPageOffsets(data: Uint8Array): number[] {
  if (!isTiff(data)) return [];
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const le = data[0] === 0x49;
  const out: number[] = [];
  const seen = new Set<number>();
  let at = view.getUint32(4, le);
  while (at > 0 && at + 2 <= data.length && !seen.has(at) && out.length < 10_000) {
    seen.add(at);
    out.push(at);
    const count = view.getUint16(at, le);
    const nextAt = at + 2 + count * 12;
    if (nextAt + 4 > data.length) break;
    at = view.getUint32(nextAt, le);
  }
  return out;
}

/** The TIFF with page `index` (0-based) as its first image. */
export function tiffPage(data: Uint8Array, index: number): Uint8Array {
  const offsets = tiffPageOffsets(data);
  const at = offsets[index];
  if (at === undefined) throw new RangeError(`TIFF has ${offsets.length} page(s), no page ${index + 1}`);
  if (index === 0) return data;
  const copy = new Uint8Array(data);
  new DataView(copy.buffer).setUint32(4, at, data[0] === 0x49);
  return copy;
}
