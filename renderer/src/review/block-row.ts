import { BLOCK_TYPES } from '../../../server/core/extract/types.js';
import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { label, percent } from '../ui/format.js';
import { effectiveText, effectiveType } from './block-store.js';
import { isFlagged } from './queue-order.js';
import { blockTable, tableField, tablePreview } from './table-grid.js';
import { toast } from '../ui/toast.js';

export const ROW_HEIGHT = 76;
export const SELECTED_HEIGHT = 108;
export const EDITING_HEIGHT = 320;

export function loadingRow(index: number): HTMLElement {
  return h(
    'div',
    { class: 'row block-row loading', role: 'option', 'aria-selected': 'false' },
    h('span', { class: 'muted' }, `#${index + 1} loading…`),
  );
}

const HINTS = 'A approve · R reject · E edit · N note · H history · U undo';
const READ_ONLY_HINTS = 'Read only: review is closed · H history';

/** One block in the list: position, type, status, page, confidence, and its (corrected) text. */
export function blockRow(b: Block, selected: boolean, onPick: () => void, readOnly = false): HTMLElement {
  const type = effectiveType(b);
  const table = blockTable(b);
  const conf =
    typeof b.confidence === 'number'
      ? h(
          'span',
          { class: `conf${isFlagged(b) ? ' flagged' : ''}`, title: 'OCR confidence' },
          `${percent(b.confidence)}%`,
        )
      : null;
  return h(
    'div',
    {
      class: `row block-row status-${b.status}${selected ? ' selected' : ''}`,
      role: 'option',
      'aria-selected': String(selected),
      id: `block-${b.block_id}`,
      'data-block': b.block_id,
      onclick: onPick,
    },
    h(
      'div',
      { class: 'row-meta' },
      h('span', { class: 'num' }, `#${b.order_index + 1}`),
      h('span', { class: `badge type-${type}` }, label(type) + (b.edited_type ? ' ✎' : '')),
      h('span', { class: `badge status status-${b.status}` }, b.status),
      h('span', { class: 'muted' }, `p. ${b.page}`),
      b.source === 'ocr' ? h('span', { class: 'badge ocr', title: 'Read from the page image by OCR' }, 'OCR') : null,
      conf,
      b.reviewer_note ? h('span', { class: 'note-mark', title: b.reviewer_note }, '✉ note') : null,
    ),
    // A table reads as a table (not as "| | |" Markdown); its cells are its text.
    table
      ? h('div', { class: 'row-text row-table' }, tablePreview(table))
      : h('div', { class: 'row-text' }, effectiveText(b)),
    selected ? h('div', { class: 'row-hints muted' }, readOnly ? READ_ONLY_HINTS : HINTS) : null,
  );
}

export interface EditResult {
  text: string;
  type: Block['type'];
  note: string | null;
}

/**
 * The inline editor: text, type and note, from the block or from a draft the reviewer tried to save
 * (a save that met a conflict and was cancelled). Ctrl+Enter saves, Escape cancels; `focusNote` opens it
 * on the note field (the N shortcut).
 */
export function blockEditor(
  b: Block,
  focusNote: boolean,
  onSave: (r: EditResult) => void,
  onCancel: () => void,
  draft?: EditResult,
): HTMLElement {
  const text = h('textarea', { class: 'edit-text', rows: 8, 'aria-label': 'Block text' });
  text.value = draft?.text ?? effectiveText(b);
  const typeNow = draft?.type ?? effectiveType(b);
  const type = h(
    'select',
    { class: 'edit-type', 'aria-label': 'Block type' },
    ...BLOCK_TYPES.map((t) => h('option', { value: t, selected: t === typeNow }, label(t))),
  );
  // A table is edited as a grid while its text is a Markdown table (the Markdown stays one click away).
  const grid =
    typeNow === 'table' ? tableField(text, () => toast('That text is not a Markdown table: it stays text.')) : null;
  const note = h('input', {
    class: 'edit-note',
    'aria-label': 'Reviewer note',
    placeholder: 'Note for the audit trail',
    value: draft ? (draft.note ?? '') : (b.reviewer_note ?? ''),
  });
  const save = () =>
    onSave({
      text: grid ? grid.value() : text.value,
      type: type.value as Block['type'],
      note: note.value.trim() || null,
    });
  const el = h(
    'div',
    {
      class: 'row block-row editing selected',
      role: 'option',
      'aria-selected': 'true',
      id: `block-${b.block_id}`,
      'data-block': b.block_id,
    },
    h(
      'div',
      { class: 'row-meta' },
      h('span', { class: 'num' }, `#${b.order_index + 1}`),
      h('span', { class: 'muted' }, `Editing · p. ${b.page} · Ctrl+Enter saves, Esc cancels`),
    ),
    grid ? grid.element : text,
    h(
      'div',
      { class: 'edit-bar' },
      type,
      note,
      grid?.toggle,
      h('button', { type: 'button', onclick: onCancel }, 'Cancel'),
      h('button', { type: 'button', class: 'primary', onclick: save }, 'Save'),
    ),
  );
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    }
    // Typing here must not reach the list's single-key shortcuts.
    e.stopPropagation();
  });
  queueMicrotask(() => (focusNote ? note : (grid ?? text)).focus());
  return el;
}
