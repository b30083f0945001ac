/**
 * Scans of text in other scripts, made by the tests: lines drawn with a system font on a white page by
 * @napi-rs/canvas (Skia shapes Arabic joining forms and lays right-to-left lines out right-aligned), then
 * given light noise like the other generated scans, as a PNG at `dpi`.
 */
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { existsSync } from 'node:fs';

import { seededRandom } from './seeded-random.js';

/** Debian's fonts: DejaVu Sans covers Latin, Cyrillic, Arabic and Hebrew; WenQuanYi Zen Hei covers Han (fonts-wqy-zenhei, scripts/install.sh). */
export const SCRIPT_FONTS = {
  latin: '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  arabic: '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  han: '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc',
} as const;

const registered = new Map<string, string>();

function family(file: string): string {
  let name = registered.get(file);
  if (name) return name;
  if (!existsSync(file))
    throw new Error(`font ${file} is missing: run scripts/install.sh (it installs fonts-wqy-zenhei)`);
  name = `scan-font-${registered.size}`;
  GlobalFonts.registerFromPath(file, name);
  registered.set(file, name);
  return name;
}

export interface ScriptScanOptions {
  font: string;
  rtl?: boolean;
  dpi?: number;
  /** Text size in points. */
  sizePt?: number;
  noise?: number;
  seed?: number;
}

/** An A5-wide page of `lines` (the first drawn larger, as a heading), as a PNG. */
export function scriptScan(lines: readonly string[], opts: ScriptScanOptions): Buffer {
  const dpi = opts.dpi ?? 200;
  const px = (pt: number): number => Math.round((pt * dpi) / 72);
  const size = px(opts.sizePt ?? 14);
  const width = px(420);
  const margin = px(36);
  const height = margin * 2 + Math.round(size * 1.8) * (lines.length + 1);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#111111';
  ctx.textBaseline = 'top';
  ctx.direction = opts.rtl ? 'rtl' : 'ltr';
  ctx.textAlign = opts.rtl ? 'right' : 'left';
  const x = opts.rtl ? width - margin : margin;
  let y = margin;
  for (const [i, line] of lines.entries()) {
    const s = i === 0 ? Math.round(size * 1.5) : size;
    ctx.font = `${s}px "${family(opts.font)}"`;
    ctx.fillText(line, x, y);
    y += Math.round(s * 1.8);
  }
  const img = ctx.getImageData(0, 0, width, height);
  const rnd = seededRandom(opts.seed ?? 7);
  const noise = opts.noise ?? 8;
  for (let i = 0; i < img.data.length; i += 4) {
    const v = Math.max(0, Math.min(255, (img.data[i] as number) + (rnd() - 0.5) * 2 * noise));
    img.data[i] = img.data[i + 1] = img.data[i + 2] = v;
  }
  ctx.putImageData(img, 0, 0);
  return canvas.toBuffer('image/png');
}

/**
 * A PDF with a right-to-left text layer laid out as a typesetter does: each line's words placed from the
 * right margin leftwards, one text object per word (so the words stand in visual order on the page, and
 * only reading them from the right gives the sentence). pdfkit lays words out left to right, so they are
 * placed here one by one.
 */
const LTR_WORD = /^[\p{Script=Latin}\p{Nd}.,:;()-]+$/u;

export async function rtlTextPdf(lines: readonly string[], font: string): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A5', margin: 40 });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.font(font);
  const right = doc.page.width - 40;
  let y = 50;
  for (const [i, line] of lines.entries()) {
    const size = i === 0 ? 18 : 11;
    doc.fontSize(size);
    const space = doc.widthOfString(' ');
    // Words in reading order, a stretch of left-to-right words (ISO 9001) kept as one group that reads
    // left to right within the line that reads from the right.
    const groups: string[][] = [];
    for (const word of line.split(' ')) {
      const last = groups[groups.length - 1];
      if (last && LTR_WORD.test(word) && LTR_WORD.test(last[last.length - 1] as string)) last.push(word);
      else groups.push([word]);
    }
    let x = right;
    for (const group of groups) {
      const width = doc.widthOfString(group.join(' '));
      x -= width;
      let gx = x;
      for (const word of group) {
        doc.text(word, gx, y, { lineBreak: false });
        gx += doc.widthOfString(word) + space;
      }
      x -= space;
    }
    y += size * 1.8;
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}
