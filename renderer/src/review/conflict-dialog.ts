import { h } from '../ui/dom.js';
import { openDialog } from '../ui/dialog.js';
import { label } from '../ui/format.js';
import { mergeText } from './merge-text.js';

/** One side of a conflict as the reviewer compares it. */
export interface ConflictSide {
  status: string;
  type?: string;
  text: string;
  note: string | null;
}

export type ConflictChoice = { kind: 'mine' } | { kind: 'theirs' } | { kind: 'merge'; text: string; note: string | null } | { kind: 'cancel' };

function sideView(title: string, side: ConflictSide, other: ConflictSide): HTMLElement {
  const differs = (a: unknown, b: unknown) => (a !== b ? 'differs' : '');
  return h(
    'section',
    { class: 'conflict-side' },
    h('h3', {}, title),
    h('p', { class: `meta ${differs(side.status, other.status)}` }, `Status: ${label(side.status)}`),
    side.type ? h('p', { class: `meta ${differs(side.type, other.type)}` }, `Type: ${label(side.type)}`) : null,
    h('pre', { class: `conflict-text ${differs(side.text, other.text)}` }, side.text),
    h('p', { class: `meta ${differs(side.note, other.note)}` }, `Note: ${side.note ?? '—'}`),
  );
}

/** Both notes when they differ: neither reviewer's remark is silently dropped by a merge. */
export function mergeNotes(mine: string | null, theirs: string | null): string | null {
  if (!mine || mine === theirs) return theirs ?? mine;
  if (!theirs) return mine;
  return `${theirs}\n${mine}`;
}

/**
 * Another reviewer changed the item since it was read (409 VERSION_CONFLICT). Shows their version beside
 * this reviewer's change and lets them keep either, or merge: the merge box starts with both text edits
 * applied when they touch different parts of the text, otherwise with this reviewer's text to finish by hand.
 */
export function conflictDialog(opts: { what: string; base: string; mine: ConflictSide; theirs: ConflictSide; theirVersion: number; theirReviewer?: string }): Promise<ConflictChoice> {
  const merged = mergeText(opts.base, opts.mine.text, opts.theirs.text);
  const box = h('textarea', { class: 'merge-text', rows: 6, 'aria-label': 'Merged text' });
  box.value = merged.text;
  const note = h('input', { class: 'merge-note', 'aria-label': 'Merged note', value: mergeNotes(opts.mine.note, opts.theirs.note) ?? '' });
  const body = [
    h('p', {}, `${opts.what} was changed by ${opts.theirReviewer ?? 'another reviewer'} (now version ${opts.theirVersion}) after you opened it.`),
    h('div', { class: 'conflict-sides' }, sideView('Yours', opts.mine, opts.theirs), sideView('Theirs', opts.theirs, opts.mine)),
    h('label', { class: 'merge-label' }, merged.clean ? 'Merged text (both changes applied)' : 'Merged text (the changes overlap: finish it by hand)', box),
    h('label', { class: 'merge-label' }, 'Note', note),
  ];
  return openDialog<ConflictChoice['kind']>({
    title: 'Someone else changed this',
    className: 'conflict',
    body,
    buttons: [
      { label: 'Keep theirs', value: 'theirs', key: 'T' },
      { label: 'Merge', value: 'merge', key: 'G' },
      { label: 'Keep mine', value: 'mine', key: 'M', kind: 'primary' },
    ],
    cancel: 'cancel',
  }).then((kind): ConflictChoice => (kind === 'merge' ? { kind, text: box.value, note: note.value.trim() || null } : { kind }));
}
