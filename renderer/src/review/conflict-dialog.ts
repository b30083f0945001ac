import { h } from '../ui/dom.js';
import { openDialog } from '../ui/dialog.js';
import { label, when } from '../ui/format.js';
import type { ChangeAuthor } from './conflict-author.js';
import { mergeText } from './merge-text.js';
import { wordDiff } from './word-diff.js';

/** One side of a conflict as the reviewer compares it. */
export interface ConflictSide {
  status: string;
  type?: string;
  text: string;
  note: string | null;
}

export type ConflictChoice =
  | { kind: 'mine' }
  | { kind: 'theirs' }
  | { kind: 'merge'; text: string; note: string | null }
  | { kind: 'cancel' };

/** The side's text with the words it removed from the base struck out and the words it added marked. */
function diffView(base: string, text: string): HTMLElement {
  const parts = wordDiff(base, text);
  const changed = parts.some((p) => p.kind !== 'same');
  return h(
    'pre',
    {
      class: 'conflict-text',
      title: changed
        ? 'Struck out: words removed from the text you both opened; marked: words added'
        : 'Text as you both opened it',
    },
    ...parts.map((p) => (p.kind === 'same' ? p.text : h(p.kind === 'added' ? 'ins' : 'del', {}, p.text))),
  );
}

function sideView(
  kind: 'mine' | 'theirs',
  title: string,
  base: string,
  side: ConflictSide,
  other: ConflictSide,
): HTMLElement {
  const differs = (a: unknown, b: unknown) => (a !== b ? 'differs' : '');
  return h(
    'section',
    { class: `conflict-side ${kind}` },
    h('h3', {}, title),
    h('p', { class: `meta ${differs(side.status, other.status)}` }, `Status: ${label(side.status)}`),
    side.type ? h('p', { class: `meta ${differs(side.type, other.type)}` }, `Type: ${label(side.type)}`) : null,
    diffView(base, side.text),
    side.text === base ? h('p', { class: 'meta muted' }, 'Text unchanged') : null,
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
 * Another reviewer changed the item since it was read (409 VERSION_CONFLICT). Shows, word by word, what
 * each side did to the text both started from, names who made theirs, and lets this reviewer keep either
 * or merge: the merge box starts with both text edits applied when they touch different parts of the
 * text, otherwise with this reviewer's text to finish by hand. Nothing is chosen by default: focus starts
 * on Cancel, so Enter or Escape writes nothing (keeping mine would overwrite the other reviewer's work).
 */
export function conflictDialog(opts: {
  what: string;
  base: string;
  mine: ConflictSide;
  theirs: ConflictSide;
  theirVersion: number;
  author?: ChangeAuthor;
}): Promise<ConflictChoice> {
  const merged = mergeText(opts.base, opts.mine.text, opts.theirs.text);
  const box = h('textarea', { class: 'merge-text', rows: 6, 'aria-label': 'Merged text' });
  box.value = merged.text;
  const note = h('input', {
    class: 'merge-note',
    'aria-label': 'Merged note',
    value: mergeNotes(opts.mine.note, opts.theirs.note) ?? '',
  });
  const who = opts.author?.reviewer ?? 'another reviewer';
  const body = [
    h(
      'p',
      {},
      `${opts.what} was changed by `,
      h('strong', { class: 'conflict-author' }, who),
      `${opts.author ? ` (${when(opts.author.at)})` : ''}, now version ${opts.theirVersion}, after you opened it.`,
    ),
    h(
      'div',
      { class: 'conflict-sides' },
      sideView('mine', 'Yours', opts.base, opts.mine, opts.theirs),
      sideView('theirs', `Theirs (${who})`, opts.base, opts.theirs, opts.mine),
    ),
    h(
      'label',
      { class: 'merge-label' },
      merged.clean ? 'Merged text (both changes applied)' : 'Merged text (the changes overlap: finish it by hand)',
      box,
    ),
    h('label', { class: 'merge-label' }, 'Note', note),
  ];
  return openDialog<ConflictChoice['kind']>({
    title: 'Someone else changed this',
    className: 'conflict',
    body,
    buttons: [
      { label: 'Cancel (Esc)', value: 'cancel' },
      { label: 'Keep theirs', value: 'theirs', key: 'T' },
      { label: 'Merge', value: 'merge', key: 'G' },
      { label: 'Keep mine', value: 'mine', key: 'M' },
    ],
    cancel: 'cancel',
    focus: 'cancel',
  }).then(
    (kind): ConflictChoice =>
      kind === 'merge' ? { kind, text: box.value, note: note.value.trim() || null } : { kind },
  );
}
