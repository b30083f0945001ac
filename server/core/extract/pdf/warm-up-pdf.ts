/**
 * A small PDF written here, byte by byte, for a worker thread to read once before real work: a fresh
 * thread runs pdf.js and the layout code unoptimised, and takes 2-3x longer over its first documents
 * than once V8 has compiled the hot paths (bench/HISTORY.md, ingest). The pages hold what real documents
 * hold — headings, justified paragraphs set with TJ kerning, a bullet list, an aligned table, code,
 * a vector drawing with its caption, running footers, one- and two-column pages — with its serif text in
 * an embedded Type 1 program with a ToUnicode map, as TeX writes it (warm-up-type1.ts), its sans and
 * typewriter text in standard fonts, and its page contents compressed, as producers write them.
 * Its paragraphs change font and size from line to line among many fonts, as a paper's text, math and
 * notes do: a thread warmed on three serif fonts read a paper's first time ~9% slower (bench:extract,
 * bench/HISTORY.md, ingest, 2026-11-25).
 */
import { deflateSync } from 'node:zlib';
import { type1Program, winAnsiWidths } from './warm-up-type1.js';

const WIDTH = 595;
const HEIGHT = 842;
const MARGIN = 64;

const WORDS = (
  'the review of each extracted block keeps a record of who changed what and when so that a team can ' +
  'trust the final document while the index answers questions with citations to pages and sections ' +
  'measured results show that careful layout analysis recovers headings lists tables and figures from ' +
  'papers manuals reports and slides written in many different styles over several decades of printing'
).split(' ');

/** Fonts by resource name: body, bold, italic (embedded), sans, sans bold, typewriter (standard). */
const EMBEDDED = {
  F1: 'LWAAAA+LecternSerif',
  F2: 'LWAAAB+LecternSerif-Bold',
  F3: 'LWAAAC+LecternSerif-Italic',
} as const;
const STANDARD = { F4: 'Helvetica', F5: 'Helvetica-Bold', F6: 'Courier' } as const;
/**
 * More faces of the serif program under fonts of their own (S0..S15), the way a TeX paper embeds a dozen or
 * more subsets (sizes, math, symbols): each is a font object of its own to the reader.
 */
const SERIF_FACES = Array.from(
  { length: 16 },
  (_, i) => [`S${i}`, `LWAB${String.fromCharCode(65 + i)}A+LecternSerif-${i}`] as const,
);
type FontKey = keyof typeof EMBEDDED | keyof typeof STANDARD | `S${number}`;

/** The codes the embedded font's dictionary gives widths for: ASCII and the bullet (WinAnsi 149). */
const FIRST_CHAR = 32;
const LAST_CHAR = 149;

const TO_UNICODE =
  '/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CMapName /Lectern-WinAnsi def\n/CMapType 2 def\n' +
  '1 begincodespacerange\n<00> <FF>\nendcodespacerange\n2 beginbfrange\n<20> <7E> <0020>\n<95> <95> <2022>\nendbfrange\n' +
  'endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend';

/** A stream object's body: the data deflated, as nearly every producer writes content and fonts. */
function flateStream(data: Uint8Array | string, dict = ''): string {
  const packed = deflateSync(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  return `<< /Length ${packed.length} /Filter /FlateDecode ${dict}>>\nstream\n${packed.toString('latin1')}\nendstream`;
}

/** Deterministic word stream: the same bytes every time. */
function words(seed: number, count: number): string[] {
  let s = seed >>> 0 || 1;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out.push(WORDS[(s >>> 8) % WORDS.length] as string);
  }
  return out;
}

function escapeText(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** Content stream of one page. */
class Page {
  private readonly ops: string[] = [];

  text(font: FontKey, size: number, x: number, y: number, text: string): void {
    this.ops.push(`BT /${font} ${size} Tf ${x.toFixed(2)} ${(HEIGHT - y).toFixed(2)} Td (${escapeText(text)}) Tj ET`);
  }

  /** A justified line as TJ with kerning between words, the way TeX and most producers write it. */
  kerned(font: FontKey, size: number, x: number, y: number, lineWords: string[]): void {
    const parts = lineWords.map(
      (w, i) => `(${escapeText(i < lineWords.length - 1 ? `${w} ` : w)})${i % 3 === 1 ? ' -12' : ''}`,
    );
    this.ops.push(`BT /${font} ${size} Tf ${x.toFixed(2)} ${(HEIGHT - y).toFixed(2)} Td [${parts.join(' ')}] TJ ET`);
  }

  path(ops: string): void {
    this.ops.push(ops);
  }

  toString(): string {
    return this.ops.join('\n');
  }
}

/** Paragraph lines of `perLine` words from y down; returns the y below the paragraph. */
function paragraph(page: Page, seed: number, x: number, y: number, lines: number, perLine: number): number {
  const w = words(seed, lines * perLine);
  for (let i = 0; i < lines; i++) {
    const line = w.slice(i * perLine, (i + 1) * perLine);
    if (i === 0) line[0] = `${(line[0] ?? '').charAt(0).toUpperCase()}${(line[0] ?? '').slice(1)}`;
    const k = (seed + i) % SERIF_FACES.length;
    page.kerned(`S${k}`, 10 - (k % 3) * 0.5, x, y + i * 12.5, line);
  }
  return y + lines * 12.5 + 8;
}

function onePage(n: number, twoColumns: boolean): Page {
  const page = new Page();
  page.text('F5', 16, MARGIN, 80, `${n} Reviewing documents, part ${n}`);
  let y = 112;
  if (twoColumns) {
    const colWidth = (WIDTH - 2 * MARGIN - 20) / 2;
    for (const [i, x] of [MARGIN, MARGIN + colWidth + 20].entries()) {
      let cy = y;
      page.text('F2', 11, x, cy, `${n}.${i + 1} Column ${i + 1}`);
      cy += 18;
      for (let p = 0; p < 4; p++) cy = paragraph(page, n * 100 + i * 10 + p, x, cy, 7, 7);
    }
  } else {
    y = paragraph(page, n * 100, MARGIN, y, 6, 13);
    page.text('F2', 12, MARGIN, y + 6, `${n}.1 Lists and tables`);
    y += 26;
    for (let i = 0; i < 4; i++) {
      page.text('F1', 10, MARGIN + 8, y, '\u0095');
      page.kerned('F1', 10, MARGIN + 20, y, words(n * 7 + i, 9));
      y += 13;
    }
    y += 10;
    page.text('F4', 9, MARGIN + 60, y, 'Table 1: Pages read per second');
    y += 16;
    const rows = [
      ['Method', 'Pages', 'Seconds', 'Rate'],
      ...[1, 2, 3, 4, 5].map((r) => [
        `method ${r}`,
        `${r * 40 + n}`,
        `${(r * 1.7).toFixed(2)}`,
        `${(r * 23.5 + n).toFixed(1)}`,
      ]),
    ];
    for (const [r, row] of rows.entries()) {
      row.forEach((cell, c) => page.text(r === 0 ? 'F5' : 'F4', 9, MARGIN + 60 + c * 90, y, cell));
      y += 12;
    }
    y += 12;
    for (const [i, code] of ['for (const page of pages) {', '  await readPage(page, fonts);', '}'].entries())
      page.text('F6', 9, MARGIN + 20, y + i * 11, code);
    y += 46;
    // A plot drawn with vector paths, like a chart in a paper.
    const top = y;
    const segments = Array.from(
      { length: 30 },
      (_, i) => `${(MARGIN + 80 + i * 8).toFixed(1)} ${(HEIGHT - top - 90 + ((i * 37) % 70)).toFixed(1)} l`,
    );
    page.path(
      `0.5 w ${MARGIN + 80} ${HEIGHT - top - 100} m ${MARGIN + 330} ${HEIGHT - top - 100} l S ${MARGIN + 80} ${HEIGHT - top - 100} m ${MARGIN + 80} ${HEIGHT - top} l S`,
    );
    page.path(`1 w ${MARGIN + 80} ${HEIGHT - top - 90} m ${segments.join(' ')} S`);
    page.path(`${MARGIN + 90} ${HEIGHT - top - 40} 30 25 re f ${MARGIN + 150} ${HEIGHT - top - 60} 30 45 re f`);
    page.text('F3', 9, MARGIN + 80, top + 114, `Figure ${n}: Pages per second as the document grows.`);
    y = paragraph(page, n * 100 + 50, MARGIN, top + 140, 5, 13);
  }
  page.text('F4', 8, WIDTH / 2 - 20, HEIGHT - 40, `Lectern warm-up - ${n}`);
  return page;
}

/** A PDF of `pages` pages (alternately one and two columns), with a classic cross-reference table. */
export function warmUpPdf(pages = 6): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add('');
  const pagesObj = add('');
  const program = type1Program('LecternSerif');
  const fontFile = add(
    flateStream(program.bytes, `/Length1 ${program.length1} /Length2 ${program.length2} /Length3 ${program.length3} `),
  );
  const toUnicode = add(flateStream(TO_UNICODE));
  const widths = winAnsiWidths(FIRST_CHAR, LAST_CHAR).join(' ');
  const embedded = [...Object.entries(EMBEDDED), ...SERIF_FACES].map(([key, base]) => {
    const italic = base.endsWith('Italic');
    // Flags: serif and non-symbolic (34), plus italic (64).
    const descriptor = add(
      `<< /Type /FontDescriptor /FontName /${base} /Flags ${italic ? 98 : 34} /FontBBox [0 -200 1000 900] /ItalicAngle ${italic ? -12 : 0} ` +
        `/Ascent 700 /Descent -200 /CapHeight 680 /XHeight 450 /StemV ${base.endsWith('Bold') ? 140 : 80} /FontFile ${fontFile} 0 R >>`,
    );
    const font = add(
      `<< /Type /Font /Subtype /Type1 /BaseFont /${base} /FirstChar ${FIRST_CHAR} /LastChar ${LAST_CHAR} /Widths [${widths}] ` +
        `/Encoding /WinAnsiEncoding /FontDescriptor ${descriptor} 0 R /ToUnicode ${toUnicode} 0 R >>`,
    );
    return `/${key} ${font} 0 R`;
  });
  const standard = Object.entries(STANDARD).map(
    ([key, base]) =>
      `/${key} ${add(`<< /Type /Font /Subtype /Type1 /BaseFont /${base} /Encoding /WinAnsiEncoding >>`)} 0 R`,
  );
  const fontRefs = [...embedded, ...standard];
  const kids: number[] = [];
  for (let n = 1; n <= pages; n++) {
    const stream = add(flateStream(onePage(n, n % 2 === 0).toString()));
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${WIDTH} ${HEIGHT}] /Resources << /Font << ${fontRefs.join(' ')} >> >> /Contents ${stream} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Count ${kids.length} /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] >>`;

  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
