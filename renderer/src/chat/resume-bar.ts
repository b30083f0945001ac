import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import type { ResumeAction } from './chat-transport.js';

/**
 * Approve, edit or reject an answer held for approval. `send` finishes it on the server and redraws the
 * turn; a refusal (already resumed by someone else, say) is written beside the buttons.
 */
export function resumeBar(draft: string, send: (action: ResumeAction, edited?: string) => Promise<void>): HTMLElement {
  const bar = h('div', { class: 'resume' });
  const run = async (action: ResumeAction, edited?: string) => {
    try {
      await send(action, edited);
    } catch (err) {
      bar.append(h('span', { class: 'error' }, errorText(err)));
    }
  };
  const edit = () => {
    const box = h('textarea', { rows: 4, class: 'edited-answer', 'aria-label': 'Edited answer' });
    box.value = draft;
    box.addEventListener('keydown', (e) => e.stopPropagation());
    bar.replaceChildren(
      box,
      h('button', { type: 'button', class: 'primary', onclick: () => void run('edit', box.value) }, 'Save answer'),
    );
    box.focus();
  };
  bar.append(
    h('span', { class: 'badge warn' }, 'awaiting approval'),
    h('button', { type: 'button', class: 'approve-answer', onclick: () => void run('approve') }, 'Approve'),
    h('button', { type: 'button', onclick: edit }, 'Edit'),
    h('button', { type: 'button', class: 'danger', onclick: () => void run('reject') }, 'Reject'),
  );
  return bar;
}
