/**
 * Scans made by the tests themselves: a generated PDF page rendered to pixels, dirtied with noise, turned by
 * a quarter-turn and/or a small skew, then handed over as PNG, as a multi-page TIFF, or wrapped in an
 * image-only PDF. Noise comes from a seeded generator, so every run OCRs the same pixels.
 */
import { createCanvas, loadImage } from '@napi-rs/canvas';
import PDFDocument from 'pdfkit';

import { renderPdfPage } from '../../server/core/ocr/render-page.js';
import { finish } from './make-pdf.js';
import { seededRandom } from './seeded-random.js';

export interface ScanOptions {
  dpi?: number;
  /** Clockwise quarter-turn applied to the page, as if it went through the scanner sideways. */
  turn?: 0 | 90 | 180 | 270;
  /** Extra skew in degrees (clockwise). */
  skewDeg?: number;
  /** Standard deviation of the added grey-level noise (0..255 scale). */
  noise?: number;
  /** Share of pixels flipped to black or white ("salt and pepper"). */
  specks?: number;
  seed?: number;
}

export interface Scan {
  png: Buffer;
  width: number;
  height: number;
  dpi: number;
}

/** Renders page `pageNumber` of `pdf` and makes a scan of it. */
export async function makeScan(pdf: Uint8Array, pageNumber = 1, opts: ScanOptions = {}): Promise<Scan> {
  const dpi = opts.dpi ?? 200;
  const page = await renderPdfPage(pdf, pageNumber, dpi);
  const img = await loadImage(page.png);
  const turn = opts.turn ?? 0;
  const swap = turn === 90 || turn === 270;
  const width = swap ? img.height : img.width;
  const height = swap ? img.width : img.height;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.translate(width / 2, height / 2);
  ctx.rotate(((turn + (opts.skewDeg ?? 0)) * Math.PI) / 180);
  ctx.drawImage(img, -img.width / 2, -img.height / 2);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  const data = ctx.getImageData(0, 0, width, height);
  const rand = seededRandom(opts.seed ?? 1);
  const noise = opts.noise ?? 0;
  const specks = opts.specks ?? 0;
  const px = data.data;
  for (let i = 0; i < px.length; i += 4) {
    // Box-Muller gives normal noise; grey scans, so one value for all three channels.
    const g = (px[i] ?? 0) * 0.3 + (px[i + 1] ?? 0) * 0.59 + (px[i + 2] ?? 0) * 0.11;
    let v = g + noise * Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    if (specks && rand() < specks) v = rand() < 0.5 ? 0 : 255;
    const c = Math.max(0, Math.min(255, Math.round(v)));
    px[i] = c;
    px[i + 1] = c;
    px[i + 2] = c;
    px[i + 3] = 255;
  }
  ctx.putImageData(data, 0, 0);
  // encodeSync: the async encode reads the pixels without holding the canvas (see encodePng in render-page.ts).
  return { png: canvas.encodeSync('png'), width, height, dpi };
}

/** An image-only PDF with one page per scan, each page sized so that the image fills it at its dpi. */
export async function scansToPdf(scans: readonly Scan[]): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    margin: 0,
    info: { CreationDate: new Date(Date.UTC(2026, 0, 1)) },
  });
  for (const s of scans) addScanPage(doc, s);
  return finish(doc);
}

/** A page sized so that the scan's image fills it at its dpi. */
function addScanPage(doc: PDFKit.PDFDocument, scan: Scan): void {
  const w = (scan.width * 72) / scan.dpi;
  const h = (scan.height * 72) / scan.dpi;
  doc.addPage({ size: [w, h], margin: 0 });
  doc.image(scan.png, 0, 0, { width: w, height: h });
}

/** 8-bit grey pixels of a scan (for writing TIFFs). */
export async function scanGrey(scan: Scan): Promise<Uint8Array> {
  const img = await loadImage(scan.png);
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const rgba = ctx.getImageData(0, 0, img.width, img.height).data;
  const grey = new Uint8Array(img.width * img.height);
  for (let i = 0; i < grey.length; i++) grey[i] = rgba[i * 4] ?? 255;
  return grey;
}

/**
 * A baseline TIFF (little-endian, uncompressed, 8-bit BlackIsZero, one strip per page) with one IFD per
 * page chained in order: the simplest multi-page TIFF every reader must accept.
 */
export function greyTiff(
  pages: ReadonlyArray<{ width: number; height: number; data: Uint8Array; dpi: number }>,
): Buffer {
  const ENTRIES = 10;
  const ifdSize = 2 + ENTRIES * 12 + 4;
  const chunks: Buffer[] = [];
  let offset = 8;
  const header = Buffer.alloc(8);
  header.write('II', 0, 'latin1');
  header.writeUInt16LE(42, 2);
  chunks.push(header);
  let prevNextPtr: { buf: Buffer; at: number } = { buf: header, at: 4 };
  for (const p of pages) {
    const ifdAt = offset;
    const resAt = ifdAt + ifdSize;
    const pixelsAt = resAt + 8;
    prevNextPtr.buf.writeUInt32LE(ifdAt, prevNextPtr.at);
    const ifd = Buffer.alloc(ifdSize + 8);
    ifd.writeUInt16LE(ENTRIES, 0);
    const entries: Array<[number, number, number, number]> = [
      [256, 4, 1, p.width],
      [257, 4, 1, p.height],
      [258, 3, 1, 8],
      [259, 3, 1, 1],
      [262, 3, 1, 1],
      [273, 4, 1, pixelsAt],
      [277, 3, 1, 1],
      [278, 4, 1, p.height],
      [279, 4, 1, p.data.length],
      [282, 5, 1, resAt],
    ];
    entries.forEach(([tag, type, count, value], k) => {
      const at = 2 + k * 12;
      ifd.writeUInt16LE(tag, at);
      ifd.writeUInt16LE(type, at + 2);
      ifd.writeUInt32LE(count, at + 4);
      if (type === 3) ifd.writeUInt16LE(value, at + 8);
      else ifd.writeUInt32LE(value, at + 8);
    });
    ifd.writeUInt32LE(0, 2 + ENTRIES * 12);
    ifd.writeUInt32LE(p.dpi, ifdSize);
    ifd.writeUInt32LE(1, ifdSize + 4);
    prevNextPtr = { buf: ifd, at: 2 + ENTRIES * 12 };
    chunks.push(ifd, Buffer.from(p.data.buffer, p.data.byteOffset, p.data.byteLength));
    offset = pixelsAt + p.data.length;
    // IFDs must start on a word boundary.
    if (offset % 2) {
      chunks.push(Buffer.alloc(1));
      offset++;
    }
  }
  return Buffer.concat(chunks);
}

/**
 * A mixed document: page 1 born digital (the given lines as a text layer, A4, or what `page1` draws), page 2 the scan as an image
 * only, the way a scanned appendix ends up in a report; with `stamp`, that line is set as text over the
 * scan's top margin, as archives and download services stamp scans.
 */
export async function textThenScanPdf(
  page1: readonly string[] | ((doc: PDFKit.PDFDocument) => void),
  scan: Scan,
  stamp?: string,
): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    margin: 0,
    info: { CreationDate: new Date(Date.UTC(2026, 0, 1)) },
  });
  doc.addPage({ size: 'A4', margin: 0 });
  if (typeof page1 === 'function') page1(doc);
  else
    page1.forEach((line, i) =>
      doc
        .font('Helvetica')
        .fontSize(11)
        .text(line, 72, 72 + i * 16, { lineBreak: false }),
    );
  addScanPage(doc, scan);
  if (stamp) doc.font('Helvetica').fontSize(7).text(stamp, 36, 14, { lineBreak: false });
  return finish(doc);
}
