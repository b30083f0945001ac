/**
 * Spreadsheets and slides for tests, written here: XLSX by exceljs and PPTX by pptxgenjs (writers of their
 * own, so the reader is checked against files it did not make), and the hostile ones as raw OOXML written
 * with the deflate-bomb ZIP writer of hostile-files.ts (valid files whose only fault is their size).
 */
import ExcelJS from 'exceljs';
import PptxGenJSModule from 'pptxgenjs';
import { writeZip, type Part } from './hostile-files.js';

// pptxgenjs's types are CommonJS-shaped (the class under `default`) while Node loads its ES build, whose
// default export is the class itself: take whichever this run has.
const PptxGenJS = ((PptxGenJSModule as unknown as { default?: unknown }).default ??
  PptxGenJSModule) as typeof PptxGenJSModule.default;

export type CellValue = string | number | boolean | Date | null;

export interface SheetSpec {
  name: string;
  rows: CellValue[][];
  /** Number formats by 1-based column (dates need one: Excel stores them as day numbers). */
  formats?: Record<number, string>;
}

export async function makeXlsx(sheets: readonly SheetSpec[], title?: string): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  if (title) wb.title = title;
  for (const spec of sheets) {
    const ws = wb.addWorksheet(spec.name);
    for (const row of spec.rows) ws.addRow(row);
    for (const [col, fmt] of Object.entries(spec.formats ?? {})) ws.getColumn(Number(col)).numFmt = fmt;
  }
  return new Uint8Array((await wb.xlsx.writeBuffer()) as ArrayBuffer);
}

export interface SlideSpec {
  title?: string;
  bullets?: Array<{ text: string; level?: number }>;
  /** A text box outside the placeholders (a paragraph). */
  text?: string;
  table?: string[][];
  notes?: string;
}

/** A deck on a master with a title and a body placeholder, as PowerPoint's "Title and Content" layout has. */
export async function makePptx(slides: readonly SlideSpec[], title?: string): Promise<Uint8Array> {
  const deck = new PptxGenJS();
  if (title) deck.title = title;
  deck.defineSlideMaster({
    title: 'CONTENT',
    objects: [
      { placeholder: { options: { name: 'title', type: 'title', x: 0.5, y: 0.2, w: 9, h: 1 }, text: '' } },
      { placeholder: { options: { name: 'body', type: 'body', x: 0.5, y: 1.3, w: 9, h: 2.5 }, text: '' } },
    ],
  });
  for (const spec of slides) {
    const slide = deck.addSlide({ masterName: 'CONTENT' });
    if (spec.title) slide.addText(spec.title, { placeholder: 'title' });
    if (spec.bullets) {
      slide.addText(
        spec.bullets.map((b) => ({
          text: b.text,
          options: { bullet: true, indentLevel: b.level ?? 0, breakLine: true },
        })),
        { placeholder: 'body' },
      );
    }
    if (spec.text) slide.addText(spec.text, { x: 0.5, y: 3.9, w: 9, h: 0.5 });
    if (spec.table)
      slide.addTable(
        spec.table.map((row) => row.map((text) => ({ text }))),
        { x: 0.5, y: 4.5, w: 9 },
      );
    if (spec.notes) slide.addNotes(spec.notes);
  }
  return new Uint8Array((await deck.write({ outputType: 'nodebuffer' })) as Buffer);
}

// ---------------------------------------------------------------- hostile packages

const MiB = 1024 * 1024;
const xml = (s: string): Part => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${s}`, 'utf8');
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const rels = (items: Array<[id: string, type: string, target: string]>): Part =>
  xml(
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items
      .map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`)
      .join('')}</Relationships>`,
  );
const CONTENT_TYPES = xml(
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>',
);
/** `mib` MiB of spaces: whitespace between elements, which any XML reader must read through. */
const spaces = (mib: number): Part => ({ repeat: Buffer.alloc(MiB, 0x20), times: mib });

function xlsxOf(sheetXml: readonly Part[]): Buffer {
  return writeZip([
    { name: '[Content_Types].xml', parts: [CONTENT_TYPES] },
    { name: '_rels/.rels', parts: [rels([['rId1', 'officeDocument', 'xl/workbook.xml']])] },
    {
      name: 'xl/workbook.xml',
      parts: [
        xml(
          `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
        ),
      ],
    },
    { name: 'xl/_rels/workbook.xml.rels', parts: [rels([['rId1', 'worksheet', 'worksheets/sheet1.xml']])] },
    { name: 'xl/worksheets/sheet1.xml', parts: sheetXml },
  ]);
}

/** An XLSX whose one sheet inflates to about `mib` MiB. */
export function xlsxZipBomb(mib: number): Buffer {
  return xlsxOf([
    xml('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'),
    spaces(mib),
    Buffer.from('</sheetData></worksheet>'),
  ]);
}

/** Column letters of a 0-based index (0 -> A, 26 -> AA). */
function letters(n: number): string {
  let s = '';
  for (let i = n + 1; i > 0; i = Math.floor((i - 1) / 26)) s = String.fromCharCode(65 + ((i - 1) % 26)) + s;
  return s;
}

/** A sheet of `n` numbers on its diagonal: few values, but a grid of n x n cells. */
export function xlsxDiagonal(n: number): Buffer {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) rows.push(`<row r="${i + 1}"><c r="${letters(i)}${i + 1}"><v>${i}</v></c></row>`);
  return xlsxOf([
    xml(
      `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows.join('')}</sheetData></worksheet>`,
    ),
  ]);
}

/** A PPTX of one slide whose XML inflates to about `mib` MiB. */
export function pptxZipBomb(mib: number): Buffer {
  const P =
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
  return writeZip([
    { name: '[Content_Types].xml', parts: [CONTENT_TYPES] },
    { name: '_rels/.rels', parts: [rels([['rId1', 'officeDocument', 'ppt/presentation.xml']])] },
    {
      name: 'ppt/presentation.xml',
      parts: [
        xml(
          `<p:presentation ${P} xmlns:r="${REL}"><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>`,
        ),
      ],
    },
    { name: 'ppt/_rels/presentation.xml.rels', parts: [rels([['rId2', 'slide', 'slides/slide1.xml']])] },
    {
      name: 'ppt/slides/slide1.xml',
      parts: [
        xml(`<p:sld ${P}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Bomb</a:t></a:r></a:p></p:txBody></p:sp>`),
        spaces(mib),
        Buffer.from('</p:spTree></p:cSld></p:sld>'),
      ],
    },
  ]);
}

/** A CSV of `rows` rows of three fields under a header, written without holding it as one string. */
export function bigCsv(rows: number): Buffer {
  const parts: Buffer[] = [Buffer.from('id,name,amount\n')];
  const batch = 10_000;
  for (let start = 0; start < rows; start += batch) {
    let s = '';
    for (let i = start; i < Math.min(rows, start + batch); i++) s += `${i},item ${i},${(i % 1000) / 10}\n`;
    parts.push(Buffer.from(s));
  }
  return Buffer.concat(parts);
}

/** A CSV whose second record opens a quote that never closes, followed by `mib` MiB of letters. */
export function csvOpenQuote(mib: number): Buffer {
  return Buffer.concat([Buffer.from('id,name\n1,"'), Buffer.alloc(mib * MiB, 0x78)]);
}
