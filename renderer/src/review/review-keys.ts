import { openDialog } from '../ui/dialog.js';
import { h, isTyping } from '../ui/dom.js';

export type ReviewCommand =
  | 'next'
  | 'prev'
  | 'approve'
  | 'reject'
  | 'reset'
  | 'edit'
  | 'note'
  | 'nextPage'
  | 'prevPage'
  | 'undo'
  | 'toggleQueue'
  | 'approvePage'
  | 'history'
  | 'help';

/** The review keyboard, written once: the dispatcher and the help dialog both read it. */
export const REVIEW_KEYS: { keys: string[]; command: ReviewCommand; help: string }[] = [
  { keys: ['j', 'ArrowDown'], command: 'next', help: 'Next block' },
  { keys: ['k', 'ArrowUp'], command: 'prev', help: 'Previous block' },
  { keys: ['a'], command: 'approve', help: 'Approve, then move on' },
  { keys: ['r'], command: 'reject', help: 'Reject, then move on' },
  { keys: ['x'], command: 'reset', help: 'Back to pending' },
  { keys: ['e', 'Enter'], command: 'edit', help: 'Edit text and type (Ctrl+Enter saves, Esc cancels)' },
  { keys: ['n'], command: 'note', help: 'Add or change the note' },
  { keys: [']', 'PageDown'], command: 'nextPage', help: 'Next page' },
  { keys: ['[', 'PageUp'], command: 'prevPage', help: 'Previous page' },
  { keys: ['u', 'Ctrl+z'], command: 'undo', help: 'Undo your last action' },
  { keys: ['q'], command: 'toggleQueue', help: 'Flagged-first queue / reading order' },
  { keys: ['Shift+A'], command: 'approvePage', help: 'Approve every pending block of the page' },
  { keys: ['h'], command: 'history', help: "The block's audit trail" },
  { keys: ['?'], command: 'help', help: 'This help' },
];

/** "Ctrl+z", "Shift+A", "j": the name a keydown event has in REVIEW_KEYS. */
export function keyName(e: KeyboardEvent): string {
  if ((e.ctrlKey || e.metaKey) && e.key.length === 1) return `Ctrl+${e.key.toLowerCase()}`;
  if (e.shiftKey && /^[A-Z]$/.test(e.key)) return `Shift+${e.key}`;
  return e.key;
}

/** The command a key press stands for, or undefined when it is not one, or the user is typing. */
export function commandFor(e: KeyboardEvent): ReviewCommand | undefined {
  if (isTyping(e.target) || e.altKey) return undefined;
  // Enter on a focused button or link presses it; it is not the edit shortcut there.
  const tag = (e.target as HTMLElement | null)?.tagName;
  if (e.key === 'Enter' && (tag === 'BUTTON' || tag === 'A')) return undefined;
  const name = keyName(e);
  return REVIEW_KEYS.find((k) => k.keys.includes(name))?.command;
}

const CHANGES = new Set<ReviewCommand>(['approve', 'reject', 'reset', 'edit', 'note', 'undo', 'approvePage']);

/** Whether a command changes blocks: refused on a job whose review is closed. */
export const changesBlocks = (c: ReviewCommand): boolean => CHANGES.has(c);

/** The help dialog (`?`): every key and what it does. */
export function showReviewKeys(): void {
  void openDialog({
    title: 'Review keys',
    body: [h('dl', { class: 'keys' }, ...REVIEW_KEYS.flatMap((k) => [h('dt', {}, k.keys.join(' / ')), h('dd', {}, k.help)]))],
    buttons: [{ label: 'Close', value: true, kind: 'primary' }],
    cancel: true,
  });
}
