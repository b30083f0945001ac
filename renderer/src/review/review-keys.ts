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
  | 'help'
  | 'zoomIn'
  | 'zoomOut'
  | 'zoomFit'
  | 'reread'
  | 'nextPending'
  | 'prevPending'
  | 'nextFlagged'
  | 'prevFlagged'
  | 'find'
  | 'nextMatch'
  | 'prevMatch'
  | 'split'
  | 'mergeNext'
  | 'moveUp'
  | 'moveDown';

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
  {
    keys: ['+', '='],
    command: 'zoomIn',
    help: 'Zoom the page in (Ctrl+wheel zooms at the pointer; drag the page to pan)',
  },
  { keys: ['-'], command: 'zoomOut', help: 'Zoom the page out' },
  { keys: ['0'], command: 'zoomFit', help: 'Fit the page to its pane' },
  {
    keys: ['o'],
    command: 'reread',
    help: "Re-read a region with OCR: drag over the page, or Enter for the block's box",
  },
  { keys: ['p'], command: 'nextPending', help: 'Next pending block (round the end)' },
  { keys: ['Shift+P'], command: 'prevPending', help: 'Previous pending block' },
  { keys: ['f'], command: 'nextFlagged', help: 'Next flagged block still pending' },
  { keys: ['Shift+F'], command: 'prevFlagged', help: 'Previous flagged block still pending' },
  {
    keys: ['/'],
    command: 'find',
    help: 'Find in the document (Enter next, Shift+Enter previous, Esc back to the list)',
  },
  { keys: ['g', 'F3'], command: 'nextMatch', help: 'Next match of the search' },
  { keys: ['Shift+G'], command: 'prevMatch', help: 'Previous match of the search' },
  { keys: ['s'], command: 'split', help: 'Split the block in two' },
  { keys: ['m'], command: 'mergeNext', help: 'Merge the block with the next one' },
  { keys: ['Shift+K'], command: 'moveUp', help: 'Move the block up in reading order (or drag its row)' },
  { keys: ['Shift+J'], command: 'moveDown', help: 'Move the block down in reading order' },
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

const CHANGES = new Set<ReviewCommand>([
  'approve',
  'reject',
  'reset',
  'edit',
  'note',
  'undo',
  'approvePage',
  'split',
  'mergeNext',
  'moveUp',
  'moveDown',
]);

/** Whether a command changes blocks: refused on a job whose review is closed. */
export const changesBlocks = (c: ReviewCommand): boolean => CHANGES.has(c);

/** The help dialog (`?`): every key and what it does. */
export function showReviewKeys(): void {
  void openDialog({
    title: 'Review keys',
    body: [
      h('dl', { class: 'keys' }, ...REVIEW_KEYS.flatMap((k) => [h('dt', {}, k.keys.join(' / ')), h('dd', {}, k.help)])),
    ],
    buttons: [{ label: 'Close', value: true, kind: 'primary' }],
    cancel: true,
  });
}
