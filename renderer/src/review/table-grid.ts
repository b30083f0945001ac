import { parseTableMarkdown, tableMarkdown } from '../../../server/core/extract/table-markdown.js';
import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { effectiveText, effectiveType } from './block-store.js';

/** A table as the grid editor holds it: one head row (kept, possibly empty) over at least one body row. */
export interface GridModel {
  head: string[];
  body: string[][];
}

/** The table a block holds now (the reviewer's text, else the machine's), or null when it is not a table. */
export function blockTable(b: Block): GridModel | null {
  return effectiveType(b) === 'table' ? modelFromMarkdown(effectiveText(b)) : null;
}

/** A Markdown table as a grid; null when the text is not one (free text is never forced into cells). */
export function modelFromMarkdown(text: string): GridModel | null {
  const grid = parseTableMarkdown(text);
  const width = grid?.rows[0]?.length ?? 0;
  if (!grid || width === 0) return null;
  const head = grid.header_rows > 0 ? (grid.rows[0] ?? []) : new Array<string>(width).fill('');
  const body = grid.rows.slice(grid.header_rows);
  return { head, body: body.length ? body : [new Array<string>(width).fill('')] };
}

/**
 * The grid as the block's text, through the server's own writer: an empty head row stays the empty
 * placeholder head the extractors write, so an unchanged grid gives back the very same text.
 */
export function gridMarkdown(m: GridModel): string {
  const clean = (r: string[]) => r.map((c) => c.replace(/\s+/g, ' ').trim());
  const head = clean(m.head);
  const hasHead = head.some((c) => c !== '');
  return tableMarkdown({
    rows: hasHead ? [head, ...m.body.map(clean)] : m.body.map(clean),
    header_rows: hasHead ? 1 : 0,
  });
}

/**
 * The table drawn as a table in the block list: its head (left out when it is the empty placeholder)
 * and its rows, clipped by the row's height.
 */
export function tablePreview(m: GridModel): HTMLElement {
  const tr = (cells: string[], cell: 'th' | 'td') => h('tr', {}, ...cells.map((c) => h(cell, {}, c)));
  const hasHead = m.head.some((c) => c !== '');
  return h(
    'table',
    { class: 'table-preview', 'aria-label': `Table, ${m.body.length} rows × ${m.head.length} columns` },
    hasHead ? h('thead', {}, tr(m.head, 'th')) : null,
    h('tbody', {}, ...m.body.map((r) => tr(r, 'td'))),
  );
}

/**
 * The grid editor of a table block: every cell an input, rows and columns added and removed beside the
 * cell being edited, the head row always kept (empty means "no head"). Tab and Shift+Tab move between
 * cells, Enter to the cell below; the caller's keys (Ctrl+Enter saves, Escape cancels) pass through.
 */
export class TableGridEditor {
  readonly element: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly status: HTMLElement;
  private readonly buttons: { removeRow: HTMLButtonElement; removeCol: HTMLButtonElement };
  /** The cell the row and column buttons act beside: row 0 is the head, 1.. the body. */
  private at = { r: 1, c: 0 };

  constructor(private model: GridModel) {
    const button = (text: string, title: string, cls: string, act: () => void) =>
      h(
        'button',
        { type: 'button', class: cls, title, onmousedown: (e: Event) => e.preventDefault(), onclick: act },
        text,
      );
    this.buttons = {
      removeRow: button('− Row', 'Remove the row of the selected cell (the head row stays)', 'grid-remove-row', () =>
        this.removeRow(),
      ),
      removeCol: button('− Column', 'Remove the column of the selected cell', 'grid-remove-col', () =>
        this.removeColumn(),
      ),
    };
    this.table = h('table', { class: 'grid-cells' });
    this.status = h('span', { class: 'muted grid-status', 'aria-live': 'polite' });
    this.element = h(
      'div',
      { class: 'table-grid' },
      h(
        'div',
        { class: 'grid-bar' },
        button('+ Row', 'Add a row below the selected cell', 'grid-add-row', () => this.addRow()),
        this.buttons.removeRow,
        button('+ Column', 'Add a column right of the selected cell', 'grid-add-col', () => this.addColumn()),
        this.buttons.removeCol,
        this.status,
      ),
      h('div', { class: 'grid-scroll' }, this.table),
    );
    this.table.addEventListener('focusin', (e) => {
      const cell = (e.target as HTMLElement).closest<HTMLElement>('[data-r]');
      if (cell) this.at = { r: Number(cell.dataset['r']), c: Number(cell.dataset['c']) };
      this.showStatus();
    });
    this.table.addEventListener('input', (e) => {
      const input = e.target as HTMLInputElement;
      const r = Number(input.dataset['r']);
      const c = Number(input.dataset['c']);
      const row = r === 0 ? this.model.head : this.model.body[r - 1];
      if (row) row[c] = input.value;
    });
    this.table.addEventListener('keydown', (e) => this.onKey(e));
    this.draw();
  }

  markdown(): string {
    return gridMarkdown(this.model);
  }

  /** Focus a cell (the first body cell by default). */
  focus(r = this.at.r, c = this.at.c): void {
    this.cell(r, c)?.focus();
  }

  private get width(): number {
    return this.model.head.length;
  }

  private cell(r: number, c: number): HTMLInputElement | null {
    return this.table.querySelector<HTMLInputElement>(`input[data-r="${r}"][data-c="${c}"]`);
  }

  private draw(): void {
    const input = (r: number, c: number, value: string) =>
      h('input', {
        type: 'text',
        class: 'grid-cell',
        value,
        'data-r': r,
        'data-c': c,
        placeholder: r === 0 ? 'head' : '',
        'aria-label': r === 0 ? `Head, column ${c + 1}` : `Row ${r}, column ${c + 1}`,
      });
    this.table.replaceChildren(
      h('thead', {}, h('tr', {}, ...this.model.head.map((v, c) => h('th', {}, input(0, c, v))))),
      h(
        'tbody',
        {},
        ...this.model.body.map((row, i) => h('tr', {}, ...row.map((v, c) => h('td', {}, input(i + 1, c, v))))),
      ),
    );
    this.buttons.removeRow.disabled = this.model.body.length <= 1;
    this.buttons.removeCol.disabled = this.width <= 1;
    this.showStatus();
  }

  private showStatus(): void {
    this.status.textContent = `${this.model.body.length} rows × ${this.width} columns · Tab next cell · Ctrl+Enter saves`;
  }

  private addRow(): void {
    const r = Math.max(this.at.r, 0);
    this.model.body.splice(r, 0, new Array<string>(this.width).fill(''));
    this.draw();
    this.focus(r + 1, this.at.c);
  }

  private removeRow(): void {
    // The head row is kept: with the head selected, nothing is removed.
    if (this.at.r === 0 || this.model.body.length <= 1) return;
    this.model.body.splice(this.at.r - 1, 1);
    this.draw();
    this.focus(Math.min(this.at.r, this.model.body.length), this.at.c);
  }

  private addColumn(): void {
    const c = this.at.c + 1;
    for (const row of [this.model.head, ...this.model.body]) row.splice(c, 0, '');
    this.draw();
    this.focus(this.at.r, c);
  }

  private removeColumn(): void {
    if (this.width <= 1) return;
    for (const row of [this.model.head, ...this.model.body]) row.splice(this.at.c, 1);
    this.draw();
    this.focus(this.at.r, Math.min(this.at.c, this.width - 1));
  }

  private onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const { r, c } = this.at;
    const last = this.model.body.length;
    if (e.key === 'Tab') {
      // Row-major through the cells; past the last (or before the first) Tab leaves the grid as usual.
      const i = r * this.width + c + (e.shiftKey ? -1 : 1);
      if (i < 0 || i >= (last + 1) * this.width) return;
      e.preventDefault();
      this.focus(Math.floor(i / this.width), i % this.width);
    } else if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      if (r < last) this.focus(r + 1, c);
    }
  }
}

/** The text field of a table block's editor: the grid, or (on the reviewer's asking) its Markdown. */
export interface TableField {
  element: HTMLElement;
  /** The switch between grid and Markdown, for the editor's button bar. */
  toggle: HTMLButtonElement;
  value(): string;
  focus(): void;
}

/**
 * Wraps the editor's textarea for a table: the grid is shown instead while the text is a Markdown table;
 * "Edit as Markdown" gives the textarea (with the grid's text), "Edit as grid" reads it back. Null when
 * the text is no table, and the plain textarea stays.
 */
export function tableField(text: HTMLTextAreaElement, onNotTable: () => void): TableField | null {
  const original = text.value;
  const first = modelFromMarkdown(original);
  if (!first) return null;
  // Another writer's spelling of the same table (a flow document's, say) is kept while no cell changed:
  // opening a table and saving it must not record an edit.
  const untouched = gridMarkdown(first);
  const fromGrid = (g: TableGridEditor) => {
    const md = g.markdown();
    return md === untouched ? original : md;
  };
  let grid: TableGridEditor | null = new TableGridEditor(first);
  const slot = h('div', { class: 'table-field' }, grid.element);
  const toggle = h('button', { type: 'button', class: 'grid-toggle' }, 'Edit as Markdown');
  toggle.addEventListener('click', () => {
    if (grid) {
      text.value = fromGrid(grid);
      grid = null;
      slot.replaceChildren(text);
      toggle.textContent = 'Edit as grid';
      text.focus();
      return;
    }
    const m = modelFromMarkdown(text.value);
    if (!m) return onNotTable();
    grid = new TableGridEditor(m);
    slot.replaceChildren(grid.element);
    toggle.textContent = 'Edit as Markdown';
    grid.focus();
  });
  return {
    element: slot,
    toggle,
    value: () => (grid ? fromGrid(grid) : text.value),
    focus: () => (grid ? grid.focus() : text.focus()),
  };
}
