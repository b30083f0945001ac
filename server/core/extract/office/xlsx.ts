/**
 * XLSX -> blocks: each sheet, in the workbook's order, a level-1 heading (its name) and a table block of
 * its cells (see sheet-grid.ts). Cells show their cached values (formulas are not recalculated), dates as
 * ISO 8601, numbers as Excel's General format shows them. Sheets are streamed through the XML tokenizer
 * row by row; only the shared strings are held whole (charged to the heap check before reading).
 */
import { DEFAULT_LIMITS, type DocumentLimits } from '../limits.js';
import { makeBlock, makeFlowResult } from '../flow/result.js';
import type { ExtractedBlock, ExtractionResult } from '../types.js';
import { OoxmlPackage, packageError, relId, type Relationship } from './ooxml-package.js';
import { SheetBudget, SheetRows, type SparseRow } from './sheet-grid.js';
import { cellValue, styleIsDate, unescapeOoxml, type NumberFormats } from './xlsx-values.js';

const CODE = 'XLSX_INVALID';

/** Heap per byte of sharedStrings.xml once held as an array of strings (measured ~3; with margin). */
const SHARED_STRINGS_HEAP_PER_BYTE = 6;

interface SheetRef {
  name: string;
  part: string;
}

/** A1-style column letters -> 0-based index; -1 when the reference has none. */
function columnIndex(ref: string): number {
  let n = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower case
    if (c < 0x61 || c > 0x7a) break;
    n = n * 26 + (c - 0x60);
  }
  return i === 0 ? -1 : n - 1;
}

function readSheetsAndFormats(
  pkg: OoxmlPackage,
  workbook: string,
  rels: Map<string, Relationship>,
): { sheets: SheetRef[]; date1904: boolean } {
  const sheets: SheetRef[] = [];
  let date1904 = false;
  const found = pkg.parse(workbook, {
    open(name, attrs) {
      if (name === 'workbookPr') date1904 = attrs.date1904 === '1' || attrs.date1904 === 'true';
      if (name !== 'sheet') return;
      const rel = rels.get(relId(attrs));
      // Chart sheets and dialog sheets have no cells.
      if (rel && !rel.external && rel.type.endsWith('/worksheet'))
        sheets.push({ name: attrs.name ?? rel.target, part: rel.target });
    },
  });
  if (!found) throw packageError(CODE, `Not a readable XLSX file: it has no ${workbook}`);
  return { sheets, date1904 };
}

function readSharedStrings(pkg: OoxmlPackage, part: string | undefined): string[] {
  const strings: string[] = [];
  if (!part) return strings;
  let current: string[] | null = null;
  let inText = false;
  let phonetic = 0;
  pkg.parse(part, {
    open(name) {
      if (name === 'si') current = [];
      else if (name === 'rPh')
        phonetic++; // furigana over Japanese text: not part of the value
      else if (name === 't') inText = phonetic === 0;
    },
    text(t) {
      if (inText && current) current.push(t);
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si' && current) {
        strings.push(unescapeOoxml(current.join('')));
        current = null;
      }
    },
  });
  return strings;
}

function readDateStyles(pkg: OoxmlPackage, part: string | undefined): boolean[] {
  if (!part) return [];
  const custom = new Map<number, string>();
  const styleFormats: number[] = [];
  let inCellXfs = false;
  pkg.parse(part, {
    open(name, attrs) {
      if (name === 'numFmt' && attrs.numFmtId !== undefined) custom.set(Number(attrs.numFmtId), attrs.formatCode ?? '');
      else if (name === 'cellXfs') inCellXfs = true;
      else if (name === 'xf' && inCellXfs) styleFormats.push(Number(attrs.numFmtId ?? 0));
    },
    close(name) {
      if (name === 'cellXfs') inCellXfs = false;
    },
  });
  return styleFormats.map((id) => styleIsDate(id, custom));
}

/** Streams one worksheet's rows into `rows`. */
function readSheet(
  pkg: OoxmlPackage,
  part: string,
  shared: readonly string[],
  formats: NumberFormats,
  rows: SheetRows,
): void {
  let row: SparseRow = [];
  let column = -1;
  let cell: { column: number; type: string | undefined; style: number; raw?: string } | null = null;
  let value: string[] | null = null;
  let inline = false;
  let phonetic = 0;
  pkg.parse(part, {
    open(name, attrs) {
      if (name === 'row') {
        row = [];
        column = -1;
      } else if (name === 'c') {
        const at = columnIndex(attrs.r ?? '');
        column = at >= 0 ? at : column + 1;
        cell = { column, type: attrs.t, style: Number(attrs.s ?? 0) };
      } else if (cell && (name === 'v' || (name === 't' && inline && phonetic === 0))) {
        value ??= [];
      } else if (name === 'is') {
        inline = true;
      } else if (name === 'rPh') {
        phonetic++; // furigana of an inline string: not part of its value
      }
    },
    text(t) {
      value?.push(t);
    },
    close(name) {
      if (name === 'v' || name === 't') {
        if (cell && value) cell.raw = (cell.raw ?? '') + value.join('');
        value = null;
      } else if (name === 'is') {
        inline = false;
      } else if (name === 'rPh') {
        phonetic--;
      } else if (name === 'c' && cell) {
        if (cell.raw !== undefined) {
          rows.ensureRoom(row.length + 1);
          row.push([cell.column, cellValue(cell.type, cell.style, cell.raw, shared, formats)]);
        }
        cell = null;
      } else if (name === 'row') {
        rows.add(row);
        row = [];
      }
    },
  });
}

export async function extractXlsx(
  data: Uint8Array,
  limits: DocumentLimits = DEFAULT_LIMITS,
): Promise<ExtractionResult> {
  const pkg = await OoxmlPackage.open(data, limits, CODE, 'XLSX', {
    held: (name) => /sharedStrings\d*\.xml$/i.test(name),
    heapPerByte: SHARED_STRINGS_HEAP_PER_BYTE,
  });
  const workbook = pkg.rootPart('/officeDocument') ?? 'xl/workbook.xml';
  // The workbook's relationships name its sheets, shared strings and styles: read once.
  const rels = pkg.relationships(workbook);
  const { sheets, date1904 } = readSheetsAndFormats(pkg, workbook, rels);
  const partOf = (suffix: string) => [...rels.values()].find((r) => !r.external && r.type.endsWith(suffix))?.target;
  const shared = readSharedStrings(pkg, partOf('/sharedStrings'));
  const formats: NumberFormats = { dateStyles: readDateStyles(pkg, partOf('/styles')), date1904 };
  const budget = new SheetBudget(limits);
  const blocks: ExtractedBlock[] = [];
  const warnings: string[] = [];
  for (const sheet of sheets) {
    const rows = new SheetRows(budget);
    if (!pkg.has(sheet.part)) {
      warnings.push(`XLSX: the sheet "${sheet.name}" is missing from the file`);
      continue;
    }
    readSheet(pkg, sheet.part, shared, formats, rows);
    const table = rows.block();
    if (!table) continue; // an empty sheet says nothing
    blocks.push(makeBlock('heading', sheet.name, { heading_level: 1 }), table);
  }
  if (sheets.length === 0) warnings.push('XLSX: the workbook has no worksheets');
  return makeFlowResult('xlsx', blocks, pkg.title(), warnings);
}
