import type { ConversationSummary } from '../api/types.js';
import { h } from '../ui/dom.js';
import { when } from '../ui/format.js';

export interface ConversationListActions {
  open(id: string): void;
  rename(c: ConversationSummary, title: string | null): void;
  remove(c: ConversationSummary): void;
}

/** Newest first: the conversation a person most likely comes back to heads the list (and is opened first). */
export const newestFirst = (list: ConversationSummary[]): ConversationSummary[] =>
  [...list].sort((a, b) => b.created_at.localeCompare(a.created_at));

/**
 * What a conversation is called in the list: its title, else its first question (read lazily: the
 * summaries do not carry it), else what it is while both are unknown.
 */
function name(c: ConversationSummary, firsts: ReadonlyMap<string, string>): string {
  return c.title ?? firsts.get(c.conversation_id) ?? (c.message_count ? '…' : 'No questions yet');
}

/** The title as an input: Enter or leaving the box saves, Escape gives the name back unchanged. */
function renameBox(
  c: ConversationSummary,
  shown: string,
  done: (title: string | null | undefined) => void,
): HTMLInputElement {
  const box = h('input', {
    type: 'text',
    class: 'rename-box',
    maxlength: 200,
    'aria-label': 'Conversation title',
    value: c.title ?? shown,
  });
  let settled = false;
  const settle = (title: string | null | undefined) => {
    if (settled) return;
    settled = true;
    done(title);
  };
  box.addEventListener('keydown', (e) => {
    e.stopPropagation();
    if (e.key === 'Enter') settle(box.value.trim() || null);
    else if (e.key === 'Escape') settle(undefined);
  });
  box.addEventListener('blur', () => settle(box.value.trim() || null));
  return box;
}

function row(
  c: ConversationSummary,
  selected: boolean,
  firsts: ReadonlyMap<string, string>,
  act: ConversationListActions,
): HTMLElement {
  const shown = name(c, firsts);
  const open = h(
    'button',
    {
      type: 'button',
      class: 'conversation-open',
      title: shown,
      'aria-current': selected ? 'true' : false,
      onclick: () => act.open(c.conversation_id),
    },
    shown,
  );
  const item = h(
    'li',
    {
      class: `conversation${selected ? ' selected' : ''}`,
      'data-conversation': c.conversation_id,
      'data-kind': c.kind,
    },
    open,
    h(
      'span',
      { class: 'muted conversation-meta' },
      h('time', { datetime: c.updated_at, class: 'conversation-used' }, when(c.updated_at)),
      ' · ',
      h('span', { class: 'conversation-turns' }, `${c.message_count} turn${c.message_count === 1 ? '' : 's'}`),
      c.kind === 'vision' ? ' · images' : '',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'conversation-rename',
        title: 'Rename',
        'aria-label': `Rename ${shown}`,
        onclick: () => startRename(),
      },
      'Rename',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'conversation-delete danger',
        title: 'Delete',
        'aria-label': `Delete ${shown}`,
        onclick: () => act.remove(c),
      },
      'Delete',
    ),
  );
  const startRename = () => {
    const box = renameBox(c, shown, (title) => {
      box.replaceWith(open);
      if (title !== undefined && title !== c.title) act.rename(c, title);
    });
    open.replaceWith(box);
    box.focus();
    box.select();
  };
  return item;
}

/** The past conversations of a job or a bot: each with its name, when it was last used and its turns. */
export function conversationList(act: ConversationListActions): {
  element: HTMLElement;
  draw(list: ConversationSummary[], selected: string | null, firsts: ReadonlyMap<string, string>): void;
} {
  const items = h('ol', { class: 'conversation-items' });
  const element = h('nav', { class: 'conversations', 'aria-label': 'Conversations' }, items);
  return {
    element,
    draw(list, selected, firsts) {
      items.replaceChildren(...list.map((c) => row(c, c.conversation_id === selected, firsts, act)));
      if (!list.length)
        items.append(
          h('li', { class: 'muted conversation-none' }, 'No conversations yet: ask a question to start one.'),
        );
    },
  };
}
