import type { AppContext } from '../app-context.js';
import type { ConversationSummary } from '../api/types.js';
import { missingModelOffer } from '../models/missing-model.js';
import { confirmDialog } from '../ui/dialog.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import type { ChatTransport } from './chat-transport.js';
import { conversationInAddress } from './conversation-address.js';
import { conversationList } from './conversation-list.js';
import { ConversationState } from './conversation-state.js';
import { finishTurn, turnView, type LiveTurn } from './turn-view.js';

interface Composer {
  element: HTMLElement;
  question: HTMLTextAreaElement;
  hold: HTMLInputElement;
  ask: HTMLButtonElement;
  notice: HTMLElement;
}

/** The question box with its notice line, the transport's controls, "hold for approval" (where answers can be finished here) and Ask. */
function composer<T>(chat: ChatTransport<T>): Composer {
  const question = h('textarea', {
    rows: 2,
    name: 'question',
    'aria-label': 'Question',
    placeholder: chat.placeholder,
  });
  const hold = h('input', { type: 'checkbox', class: 'hold', 'aria-label': 'Hold answers for approval' });
  const ask = h('button', { type: 'button', class: 'primary ask' }, 'Ask');
  const notice = h('p', { class: 'error chat-notice', role: 'alert' });
  const holdLabel = chat.resume ? h('label', {}, hold, ' hold answers for approval') : null;
  const element = h(
    'div',
    { class: 'chat-composer' },
    chat.tray,
    question,
    notice,
    h('div', { class: 'chat-bar' }, ...chat.controls, holdLabel, ask),
  );
  return { element, question, hold, ask, notice };
}

/**
 * One chat panel for a job's chat and a bot's chat: the past conversations, listed from the server (each
 * renamed or deleted there), the open one's turns, and a question box. The transport is what differs.
 */
export function chatPanel<T>(ctx: AppContext, chat: ChatTransport<T>): { element: HTMLElement; dispose(): void } {
  const abort = new AbortController();
  const log = h('div', { class: 'chat-log', 'aria-live': 'polite' });
  const box = composer(chat);
  const say = (text: string) => (box.notice.textContent = text);
  const list = conversationList({
    open: (id) => void show(id),
    rename: (c, t) => void state.rename(c, t),
    remove: (c) => void remove(c),
  });
  const state = new ConversationState(ctx.api, chat, ctx.caps.conversations, abort.signal, {
    changed: () => list.draw(state.list, state.open, state.firsts),
    say,
  });
  /** Bumped each time another conversation is shown, so an answer arriving late does not draw into the wrong one. */
  let shown = 0;
  let busy = false;

  /** Opens a conversation (null: a new one) with its turns read from the server. */
  async function show(id: string | null): Promise<void> {
    if (abort.signal.aborted) return;
    const token = ++shown;
    state.setOpen(id);
    log.replaceChildren();
    if (!id)
      return void log.append(h('p', { class: 'muted chat-empty' }, 'A new conversation: ask a question to start it.'));
    try {
      const turns = await chat.history(id, abort.signal);
      if (token !== shown) return;
      for (const t of turns) {
        const live = turnView(chat.facts(t).question);
        finishTurn(live, t, chat, id);
        log.append(live.element);
      }
      log.lastElementChild?.scrollIntoView({ block: 'nearest' });
    } catch (err) {
      if (token === shown && !abort.signal.aborted)
        log.replaceChildren(
          h('p', { class: 'error chat-error', role: 'alert' }, `Could not open the conversation: ${errorText(err)}`),
        );
    }
  }

  async function remove(c: ConversationSummary): Promise<void> {
    if (
      !(await confirmDialog(
        'Delete conversation',
        `“${state.nameOf(c)}” and its ${c.message_count} turn(s) are deleted for good.`,
        'Delete',
      ))
    )
      return;
    if ((await state.remove(c)) && state.open === c.conversation_id) await show(state.list[0]?.conversation_id ?? null);
  }

  /** Asks the question box's question, or `again` (the same question once its model is installed). */
  async function ask(again?: string): Promise<void> {
    const text = again ?? box.question.value.trim();
    // One question at a time: a second one typed meanwhile stays in the box (in a new conversation it would start another).
    if (busy) return;
    if (!text) return void say(chat.emptyQuestion() ?? '');
    if (again === undefined) box.question.value = '';
    busy = box.ask.disabled = true;
    const open = state.current();
    const elsewhere = open && chat.needsNew(open);
    if (elsewhere) await show(null);
    say(elsewhere || '');
    log.querySelector('.chat-empty')?.remove();
    const live = turnView(text);
    log.append(live.element);
    // The newest turn is what the reader looks at: keep it in view in the chat's own pane.
    live.element.scrollIntoView({ block: 'nearest' });
    try {
      const id = state.open ?? (await begin());
      const turn = await chat.ask(id, { text, hold: box.hold.checked }, live, abort.signal);
      if (turn !== undefined) finishTurn(live, turn, chat, id);
      else if (live.element.dataset.status !== 'failed') live.fail('the answer broke off before it was complete');
      live.element.scrollIntoView({ block: 'nearest' });
    } catch (err) {
      if (abort.signal.aborted) return;
      failed(live, err, text);
    } finally {
      busy = box.ask.disabled = false;
    }
    // Sizes and times changed; a conversation deleted elsewhere meanwhile leaves the list.
    await state.refresh();
  }

  /**
   * A new conversation is made on the server before its first question and opened at once, so that a
   * question that fails (a missing model) and is asked again stays in it instead of starting another.
   */
  async function begin(): Promise<string> {
    const token = shown;
    const id = await chat.start(abort.signal);
    if (token === shown) state.setOpen(id);
    await state.refresh();
    return id;
  }

  /** A missing model is offered for download here (and the transport's other way to answer); once installed, the question is asked again. */
  function failed(live: LiveTurn, err: unknown, text: string): void {
    const offer = missingModelOffer(ctx, err, () => (live.element.remove(), ask(text)));
    if (!offer) return live.fail(errorText(err));
    const instead = chat.instead?.(() => void ask(text));
    if (instead) offer.append(instead);
    live.answer.replaceChildren(offer);
    live.element.dataset.status = 'failed';
    live.element.scrollIntoView({ block: 'nearest' });
  }

  box.ask.addEventListener('click', () => void ask());
  box.question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void ask();
    }
    e.stopPropagation();
  });
  const newButton = h(
    'button',
    { type: 'button', class: 'new-conversation', onclick: () => (void show(null), box.question.focus()) },
    'New conversation',
  );
  list.element.hidden = !state.listed;
  const element = h(
    'section',
    { class: `panel chat ${chat.kind}-chat`, 'aria-label': 'Chat', 'data-chat': chat.kind },
    h('div', { class: 'chat-head' }, h('h2', {}, 'Chat'), newButton),
    list.element,
    log,
    box.element,
  );
  chat.attach?.(element, say);
  void (async () => {
    await state.refresh();
    const wanted = conversationInAddress();
    await show((state.list.find((c) => c.conversation_id === wanted) ?? state.list[0])?.conversation_id ?? null);
  })().finally(() => (element.dataset.ready = 'true'));
  return { element, dispose: () => abort.abort() };
}
