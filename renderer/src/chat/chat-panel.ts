import type { AppContext } from '../app-context.js';
import type { ConversationSummary } from '../api/types.js';
import { missingModelOffer } from '../models/missing-model.js';
import { confirmDialog } from '../ui/dialog.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import type { ChatTransport } from './chat-transport.js';
import { conversationInAddress, writeConversationAddress } from './conversation-address.js';
import { conversationList, newestFirst } from './conversation-list.js';
import { finishTurn, turnView, type LiveTurn } from './turn-view.js';

/** What the panel shows: the conversations of its job or bot and which one is open (null: a new one, not yet asked). */
interface PanelState {
  list: ConversationSummary[];
  open: string | null;
  /** First questions of untitled conversations, by conversation id. */
  firsts: Map<string, string>;
  /** Bumped each time another conversation is shown, so an answer arriving late does not draw into the wrong one. */
  shown: number;
  busy: boolean;
}

/**
 * One chat panel for a job's chat and a bot's chat: the past conversations, listed from the server (each
 * renamed or deleted there), the open one's turns, and a question box. The transport is what differs.
 */
export function chatPanel<T>(ctx: AppContext, chat: ChatTransport<T>): { element: HTMLElement; dispose(): void } {
  const abort = new AbortController();
  const state: PanelState = { list: [], open: null, firsts: new Map(), shown: 0, busy: false };
  const log = h('div', { class: 'chat-log', 'aria-live': 'polite' });
  const notice = h('p', { class: 'error chat-notice', role: 'alert' });
  const question = h('textarea', { rows: 2, name: 'question', 'aria-label': 'Question', placeholder: chat.placeholder });
  const hold = h('input', { type: 'checkbox', class: 'hold', 'aria-label': 'Hold answers for approval' });
  const askButton = h('button', { type: 'button', class: 'primary ask' }, 'Ask');
  const newButton = h('button', { type: 'button', class: 'new-conversation' }, 'New conversation');
  const say = (text: string) => (notice.textContent = text);
  const list = conversationList({ open: (id) => void show(id), rename: (c, t) => void rename(c, t), remove: (c) => void remove(c) });
  const current = () => state.list.find((c) => c.conversation_id === state.open) ?? null;
  const redraw = () => list.draw(state.list, state.open, state.firsts);

  async function refresh(): Promise<void> {
    // A server without the conversation routes: each visit starts a new conversation.
    if (!ctx.caps.conversations) return;
    try {
      state.list = newestFirst(await chat.list(abort.signal));
      if (state.open && !current()) {
        // Deleted elsewhere (another tab, the API): its turns stay on screen, but nothing more is asked there.
        state.open = null;
        writeConversationAddress(null);
        say('This conversation is no longer on the server: the next question starts a new one.');
      }
      redraw();
      void learnFirsts();
    } catch (err) {
      if (!abort.signal.aborted) say(`Could not read the conversations: ${errorText(err)}`);
    }
  }

  /** Untitled conversations are named by their first question, read one at a time after the list is drawn. */
  async function learnFirsts(): Promise<void> {
    for (const c of state.list) {
      if (c.title || !c.message_count || state.firsts.has(c.conversation_id) || abort.signal.aborted) continue;
      const first = await chat.history(c.conversation_id, abort.signal).then((turns) => turns[0], () => undefined);
      if (first) state.firsts.set(c.conversation_id, chat.facts(first).question);
      redraw();
    }
  }

  /** Opens a conversation (null: a new one) with its turns read from the server. */
  async function show(id: string | null): Promise<void> {
    if (abort.signal.aborted) return;
    const token = ++state.shown;
    state.open = id;
    writeConversationAddress(id);
    redraw();
    log.replaceChildren();
    if (!id) {
      log.append(h('p', { class: 'muted chat-empty' }, 'A new conversation: ask a question to start it.'));
      return;
    }
    try {
      const turns = await chat.history(id, abort.signal);
      if (token !== state.shown) return;
      for (const t of turns) {
        const live = turnView(chat.facts(t).question);
        finishTurn(live, t, chat, id);
        log.append(live.element);
      }
      const first = turns[0];
      if (first) state.firsts.set(id, chat.facts(first).question);
      log.lastElementChild?.scrollIntoView({ block: 'nearest' });
    } catch (err) {
      if (token === state.shown && !abort.signal.aborted) log.replaceChildren(h('p', { class: 'error chat-error', role: 'alert' }, `Could not open the conversation: ${errorText(err)}`));
    }
  }

  async function rename(c: ConversationSummary, title: string | null): Promise<void> {
    try {
      const renamed = await ctx.api.send<ConversationSummary>('PATCH', `/conversations/${encodeURIComponent(c.conversation_id)}`, { title });
      state.list = state.list.map((x) => (x.conversation_id === c.conversation_id ? renamed : x));
      redraw();
    } catch (err) {
      await refresh();
      say(`Could not rename the conversation: ${errorText(err)}`);
    }
  }

  async function remove(c: ConversationSummary): Promise<void> {
    const called = c.title ?? state.firsts.get(c.conversation_id) ?? 'This conversation';
    if (!(await confirmDialog('Delete conversation', `“${called}” and its ${c.message_count} turn(s) are deleted for good.`, 'Delete'))) return;
    try {
      await ctx.api.send('DELETE', `/conversations/${encodeURIComponent(c.conversation_id)}`);
      state.list = state.list.filter((x) => x.conversation_id !== c.conversation_id);
      if (state.open === c.conversation_id) await show(state.list[0]?.conversation_id ?? null);
      else redraw();
    } catch (err) {
      await refresh();
      say(`Could not delete the conversation: ${errorText(err)}`);
    }
  }

  /** After an answer: the list is read again (sizes, times); a question that started a conversation opens it, its turn already on screen. */
  async function settle(conversationId: string | undefined, token: number): Promise<void> {
    await refresh();
    if (!conversationId || token !== state.shown || state.open !== null) return;
    state.open = conversationId;
    writeConversationAddress(conversationId);
    redraw();
  }

  /** Asks the question box's question, or `again` (the same question once its model is installed). */
  async function ask(again?: string): Promise<void> {
    const text = again ?? question.value.trim();
    // One question at a time: a second one typed meanwhile stays in the box (in a new conversation it would start another).
    if (state.busy) return;
    if (!text) return void say(chat.emptyQuestion() ?? '');
    if (again === undefined) question.value = '';
    state.busy = askButton.disabled = true;
    const open = current();
    const elsewhere = open && chat.needsNew(open);
    if (elsewhere) await show(null);
    say(elsewhere || '');
    log.querySelector('.chat-empty')?.remove();
    const live = turnView(text);
    log.append(live.element);
    // The newest turn is what the reader looks at: keep it in view in the chat's own pane.
    live.element.scrollIntoView({ block: 'nearest' });
    const token = state.shown;
    try {
      const res = await chat.ask(current(), { text, hold: hold.checked }, live, abort.signal);
      if (res.turn !== undefined && res.conversationId) finishTurn(live, res.turn, chat, res.conversationId);
      else if (live.element.dataset.status !== 'failed') live.fail('the answer broke off before it was complete');
      live.element.scrollIntoView({ block: 'nearest' });
      await settle(res.conversationId, token);
    } catch (err) {
      if (abort.signal.aborted) return;
      failed(live, err, text);
      await refresh();
    } finally {
      state.busy = askButton.disabled = false;
    }
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

  askButton.addEventListener('click', () => void ask());
  newButton.addEventListener('click', () => {
    void show(null);
    question.focus();
  });
  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void ask();
    }
    e.stopPropagation();
  });
  const holdLabel = chat.resume ? h('label', {}, hold, ' hold answers for approval') : null;
  const element = h(
    'section',
    { class: `panel chat ${chat.kind}-chat`, 'aria-label': 'Chat', 'data-chat': chat.kind },
    h('div', { class: 'chat-head' }, h('h2', {}, 'Chat'), newButton),
    list.element,
    log,
    chat.tray,
    question,
    notice,
    h('div', { class: 'chat-bar' }, ...chat.controls, holdLabel, askButton),
  );
  list.element.hidden = !ctx.caps.conversations;
  chat.attach?.(element, say);
  void (async () => {
    await refresh();
    const wanted = conversationInAddress();
    const open = state.list.find((c) => c.conversation_id === wanted) ?? state.list[0];
    await show(open?.conversation_id ?? null);
  })().finally(() => (element.dataset.ready = 'true'));
  return { element, dispose: () => abort.abort() };
}
