/**
 * One slide (or notes page) of a PPTX -> blocks, read as a stream of XML tokens. Shapes are read in the
 * slide's tree order (groups included), with the title first: a title placeholder becomes a level-1
 * heading, body placeholders list items (PowerPoint bullets them unless a paragraph says `buNone`), text
 * boxes paragraphs (list items when they carry their own bullet), footers and headers their block types,
 * and tables (`a:tbl`) table blocks whose first row is the header when the table says so (`firstRow`).
 */
import { makeBlock, oneLine, tableBlock } from '../flow/result.js';
import type { ExtractedBlock } from '../types.js';
import { attr, type OoxmlPackage } from './ooxml-package.js';
import type { SheetBudget } from './sheet-grid.js';

interface Paragraph {
  parts: string[];
  level: number;
  /** Its own bullet setting: a bullet character or number (true), `buNone` (false), or inherited (undefined). */
  bullet: boolean | undefined;
}

interface Shape {
  /** Placeholder type (`title`, `body`...), 'obj' for a placeholder without one; undefined for a plain shape. */
  placeholder: string | undefined;
  paragraphs: Paragraph[];
}

interface Table {
  rows: string[][];
  headerRows: number;
}

export interface SlideBlocks {
  /** The title placeholder's blocks, put first whatever the tree order. */
  title: ExtractedBlock[];
  body: ExtractedBlock[];
}

const SKIPPED_PLACEHOLDERS = new Set(['sldNum', 'dt', 'sldImg']);
const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);
/** Placeholders whose paragraphs are bulleted by default (the layout's body or content area). */
const BULLETED_PLACEHOLDERS = new Set(['body', 'obj']);

const paragraphText = (p: Paragraph): string =>
  p.parts
    .join('')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();

function shapeBlocks(shape: Shape, page: number): ExtractedBlock[] {
  const kind = shape.placeholder;
  if (kind !== undefined && SKIPPED_PLACEHOLDERS.has(kind)) return [];
  const texts = shape.paragraphs.map((p) => ({ p, text: paragraphText(p) })).filter((x) => x.text !== '');
  if (texts.length === 0) return [];
  const onPage = (b: ExtractedBlock): ExtractedBlock => ({ ...b, page });
  if (kind !== undefined && TITLE_PLACEHOLDERS.has(kind)) {
    return [onPage(makeBlock('heading', oneLine(texts.map((x) => x.text).join(' ')), { heading_level: 1 }))];
  }
  if (kind === 'ftr' || kind === 'hdr')
    return [onPage(makeBlock(kind === 'ftr' ? 'footer' : 'header', texts.map((x) => x.text).join('\n')))];
  const bulletedByDefault = kind !== undefined && BULLETED_PLACEHOLDERS.has(kind);
  return texts.map(({ p, text }) =>
    onPage(
      (p.bullet ?? bulletedByDefault)
        ? makeBlock('list_item', text, { indent_level: p.level })
        : makeBlock('paragraph', text),
    ),
  );
}

/**
 * Reads the blocks of a slide part. `notes`: the part is a notes page, whose body placeholder holds the
 * speaker notes (read as paragraphs) and whose other shapes (the slide's picture, its number) are left out.
 */
export function readSlide(
  pkg: OoxmlPackage,
  part: string,
  page: number,
  budget: SheetBudget,
  notes = false,
): SlideBlocks {
  const out: SlideBlocks = { title: [], body: [] };
  const shapes: Shape[] = [];
  let paragraph: Paragraph | null = null;
  let inPPr = false;
  let inText = false;
  let table: Table | null = null;
  let tableRow: string[] | null = null;
  let cell: { texts: string[]; merged: boolean } | null = null;

  const emitShape = (shape: Shape) => {
    if (notes) {
      if (shape.placeholder !== 'body') return;
      const texts = shape.paragraphs.map(paragraphText).filter((t) => t !== '');
      for (const text of texts) out.body.push({ ...makeBlock('paragraph', text), page });
      return;
    }
    const blocks = shapeBlocks(shape, page);
    (shape.placeholder !== undefined && TITLE_PLACEHOLDERS.has(shape.placeholder) ? out.title : out.body).push(
      ...blocks,
    );
  };

  pkg.parse(part, {
    open(name, attrs) {
      switch (name) {
        case 'sp':
          shapes.push({ placeholder: undefined, paragraphs: [] });
          break;
        case 'ph': {
          const shape = shapes.at(-1);
          if (shape) shape.placeholder = attrs.type ?? 'obj';
          break;
        }
        case 'p':
          paragraph = { parts: [], level: 0, bullet: undefined };
          break;
        case 'pPr':
          if (paragraph) {
            inPPr = true;
            paragraph.level = Math.min(8, Math.max(0, Number(attrs.lvl ?? 0) || 0));
          }
          break;
        case 'buChar':
        case 'buAutoNum':
        case 'buBlip':
          if (paragraph && inPPr) paragraph.bullet = true;
          break;
        case 'buNone':
          if (paragraph && inPPr) paragraph.bullet = false;
          break;
        case 't':
          inText = paragraph !== null;
          break;
        case 'br':
          paragraph?.parts.push('\n');
          break;
        case 'tbl':
          table = { rows: [], headerRows: 0 };
          break;
        case 'tblPr':
          if (table && (attrs.firstRow === '1' || attrs.firstRow === 'true')) table.headerRows = 1;
          break;
        case 'tr':
          tableRow = [];
          break;
        case 'tc':
          // The cells a merged cell covers repeat nothing: they stay empty in the grid.
          cell = { texts: [], merged: attr(attrs, 'hMerge') === '1' || attr(attrs, 'vMerge') === '1' };
          break;
      }
    },
    text(t) {
      if (inText) paragraph?.parts.push(t);
    },
    close(name) {
      switch (name) {
        case 't':
          inText = false;
          break;
        case 'pPr':
          inPPr = false;
          break;
        case 'p':
          if (paragraph) {
            if (cell) cell.texts.push(paragraphText(paragraph));
            else shapes.at(-1)?.paragraphs.push(paragraph);
          }
          paragraph = null;
          break;
        case 'tc':
          if (cell && tableRow) tableRow.push(cell.merged ? '' : oneLine(cell.texts.join(' ')));
          cell = null;
          break;
        case 'tr':
          if (tableRow && table) table.rows.push(tableRow);
          tableRow = null;
          break;
        case 'tbl':
          if (table && !notes) {
            const width = table.rows.reduce((n, r) => Math.max(n, r.length), 0);
            budget.take(width * table.rows.length);
            const block = tableBlock(table.rows, table.headerRows);
            if (block) out.body.push({ ...block, page });
          }
          table = null;
          break;
        case 'sp': {
          const shape = shapes.pop();
          if (shape) emitShape(shape);
          break;
        }
      }
    },
  });
  return out;
}
