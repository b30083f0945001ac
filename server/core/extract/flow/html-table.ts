/**
 * Turns an HTML <table> into a rectangular grid. Merged cells keep their text in the top-left slot
 * and leave the slots they cover empty: the Markdown rendering then looks like the rendered table,
 * and a long merged cell's text is not repeated (which would also duplicate search hits).
 */
import { isElement, type DomElement } from './html-dom.js';

/** HTML caps colspan at 1000; rowspan is capped by the rows left in the section anyway. */
const MAX_COLSPAN = 1000;

export interface HtmlTable {
  rows: string[][];
  headerRows: number;
  /** <caption> elements, emitted as caption blocks. */
  captions: DomElement[];
}

interface Section {
  rows: DomElement[];
}

function span(el: DomElement, name: string, max: number): number {
  const n = Number.parseInt(el.attribs[name] ?? '1', 10);
  if (!Number.isFinite(n) || n < 1) return name === 'rowspan' && n === 0 ? max : 1; // rowspan=0: to section end
  return Math.min(n, max);
}

/** Rows of a section: its <tr> children, looking through stray wrappers (<form> in old pages). */
function collectRows(container: DomElement, into: DomElement[]): void {
  for (const child of container.children) {
    if (!isElement(child)) continue;
    if (child.name === 'tr') into.push(child);
    else if (child.name === 'form') collectRows(child, into);
  }
}

/** Lays out one section's rows, resolving colspan/rowspan into a grid. */
function layout(section: Section, cellText: (cell: DomElement) => string): { grid: string[][]; allTh: boolean[] } {
  const grid: string[][] = [];
  const occupied: boolean[][] = [];
  const allTh: boolean[] = [];
  section.rows.forEach((tr, r) => {
    grid[r] ??= [];
    occupied[r] ??= [];
    const row = grid[r];
    const taken = occupied[r];
    let col = 0;
    let sawCell = false;
    let onlyTh = true;
    for (const cell of tr.children) {
      if (!isElement(cell) || (cell.name !== 'td' && cell.name !== 'th')) continue;
      sawCell = true;
      if (cell.name === 'td') onlyTh = false;
      while (taken[col]) col++;
      const colspan = span(cell, 'colspan', MAX_COLSPAN);
      const rowspan = span(cell, 'rowspan', section.rows.length - r);
      const text = cellText(cell);
      for (let dr = 0; dr < rowspan; dr++) {
        const rr = r + dr;
        grid[rr] ??= [];
        occupied[rr] ??= [];
        for (let dc = 0; dc < colspan; dc++) {
          (grid[rr] as string[])[col + dc] = dr === 0 && dc === 0 ? text : '';
          (occupied[rr] as boolean[])[col + dc] = true;
        }
      }
      col += colspan;
    }
    allTh.push(sawCell && onlyTh);
    // Holes left by rowspans from above followed by nothing: fill so the row has no gaps.
    for (let c = 0; c < row.length; c++) if (row[c] === undefined) row[c] = '';
  });
  // A row without any cell of its own and not covered by a rowspan carries nothing.
  const keep = grid.map((row) => row.length > 0);
  return { grid: grid.filter((_, i) => keep[i]), allTh: allTh.filter((_, i) => keep[i]) };
}

/**
 * Reads a table: thead rows first, then tbody / bare rows, then tfoot (render order, which is not
 * always source order). Header rows are the thead rows, or else the leading rows made only of <th>.
 */
export function readTable(table: DomElement, cellText: (cell: DomElement) => string): HtmlTable {
  const head: Section = { rows: [] };
  const body: Section[] = [];
  const foot: Section = { rows: [] };
  const captions: DomElement[] = [];
  let loose: Section | null = null;
  for (const child of table.children) {
    if (!isElement(child)) continue;
    switch (child.name) {
      case 'caption':
        captions.push(child);
        break;
      case 'thead':
        collectRows(child, head.rows);
        break;
      case 'tfoot':
        collectRows(child, foot.rows);
        break;
      case 'tbody':
        loose = null;
        body.push({ rows: [] });
        collectRows(child, (body[body.length - 1] as Section).rows);
        break;
      case 'tr':
        if (!loose) body.push((loose = { rows: [] }));
        loose.rows.push(child);
        break;
      case 'form':
        if (!loose) body.push((loose = { rows: [] }));
        collectRows(child, loose.rows);
        break;
      default:
        break;
    }
  }
  const rows: string[][] = [];
  let headerRows = 0;
  const headLayout = layout(head, cellText);
  rows.push(...headLayout.grid);
  headerRows = headLayout.grid.length;
  let leading = headerRows === 0;
  for (const section of body) {
    const { grid, allTh } = layout(section, cellText);
    grid.forEach((row, i) => {
      if (leading && allTh[i]) headerRows++;
      else leading = false;
      rows.push(row);
    });
  }
  rows.push(...layout(foot, cellText).grid);
  // A table made only of <th> rows has no body; calling all of it a header helps nobody.
  if (headerRows === rows.length && !head.rows.length) headerRows = Math.min(headerRows, 1);
  return { rows, headerRows, captions };
}
