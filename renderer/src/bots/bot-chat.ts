import type { AppContext } from '../app-context.js';
import { ApiError } from '../api/client.js';
import type { BotMessage } from '../api/types.js';
import { acceptDrops } from '../library/upload.js';
import { streamedAnswer } from '../search/sse.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { chatTurn, type ChatTurn, type TurnDeps } from './chat-turn.js';
import { citedBlocks } from './citation-links.js';
import { imagesIn, imageTray } from './image-tray.js';

interface History {
  chat_id: string;
  messages: BotMessage[];
}

/**
 * The bot's chats of this tab, kept in sessionStorage: a citation opens the review desk, and coming back
 * finds the conversation as it was (read again from GET /chats/{id}).
 */
const slot = (botId: string, kind: 'text' | 'vision') => `lectern.bot-chat.${kind}.${botId}`;

/**
 * Chat with a bot: answers stream in (Server-Sent Events, read as the jobs chat reads them), citations open the
 * cited page in the review desk with the block highlighted, images dropped or pasted make the question a
 * vision question (not streamed: the images are read by OCR first), and each answer can be rated.
 */
export function botChat(ctx: AppContext, botId: string): { element: HTMLElement; dispose(): void } {
  const { api, caps } = ctx;
  const abort = new AbortController();
  const bot = encodeURIComponent(botId);
  const deps: TurnDeps = { api, blocksOf: citedBlocks(api), feedback: caps.feedback };
  const log = h('div', { class: 'chat-log', 'aria-live': 'polite' });
  const question = h('textarea', { rows: 2, name: 'question', 'aria-label': 'Question', placeholder: caps.vision ? 'Ask the bot (drop or paste images to ask about them)' : 'Ask the bot' });
  const notice = h('p', { class: 'error chat-notice', role: 'alert' });
  const tray = imageTray((why) => (notice.textContent = why), () => (notice.textContent = ''));
  const askButton = h('button', { type: 'button', class: 'primary ask' }, 'Ask');

  async function chatId(kind: 'text' | 'vision'): Promise<string> {
    const saved = sessionStorage.getItem(slot(botId, kind));
    if (saved) return saved;
    const id =
      kind === 'text'
        ? (await api.send<{ chat_id: string }>('POST', `/bots/${bot}/chats`)).chat_id
        : (await api.send<{ vision_chat_id: string }>('POST', `/bots/${bot}/vision-chats`)).vision_chat_id;
    sessionStorage.setItem(slot(botId, kind), id);
    return id;
  }

  async function streamed(turn: ChatTurn, query: string): Promise<void> {
    const id = await chatId('text');
    const res = await api.stream(`/bots/${bot}/chats/${encodeURIComponent(id)}`, { query, stream: true }, abort.signal);
    const done = await streamedAnswer<BotMessage, { sources?: unknown[]; text?: string; message?: string }>(res, (event, data, raw) => {
      if (event === 'sources') turn.say(data.sources?.length ? `Answering from ${data.sources.length} passage(s)…` : 'Nothing relevant found.');
      else if (event === 'token') turn.append(data.text ?? '');
      else if (event === 'error') turn.fail(data.message ?? raw);
    });
    if (done) turn.finish(done, id);
    else if (turn.element.dataset.status !== 'failed') turn.fail('the answer broke off before it was complete');
  }

  async function vision(turn: ChatTurn, query: string, files: File[]): Promise<void> {
    const id = await chatId('vision');
    const form = new FormData();
    form.append('query', query);
    for (const f of files) form.append('file', f, f.name);
    turn.say(`Reading ${files.length} image(s) and answering…`);
    turn.finish(await api.sendForm<BotMessage>(`/bots/${bot}/vision-chats/${encodeURIComponent(id)}`, form, abort.signal), id);
  }

  async function ask(): Promise<void> {
    const q = question.value.trim();
    const files = tray.files();
    if (!q) {
      if (files.length) notice.textContent = 'Write a question about the image(s).';
      return;
    }
    question.value = '';
    tray.clear();
    const turn = chatTurn(deps, q, files);
    log.append(turn.element);
    turn.element.scrollIntoView({ block: 'nearest' });
    try {
      await (files.length ? vision(turn, q, files) : streamed(turn, q));
    } catch (err) {
      // A chat deleted meanwhile (the bot's chats went with a delete): the next question starts another.
      if (err instanceof ApiError && err.code === 'CHAT_NOT_FOUND') sessionStorage.removeItem(slot(botId, files.length ? 'vision' : 'text'));
      if (!abort.signal.aborted) turn.fail(errorText(err));
    }
  }

  /** The tab's earlier questions to this bot, text and vision, in the order they were asked. */
  async function restore(): Promise<void> {
    const histories: { id: string; m: BotMessage }[] = [];
    for (const kind of ['text', 'vision'] as const) {
      const id = sessionStorage.getItem(slot(botId, kind));
      if (!id) continue;
      try {
        const history = await api.get<History>(`/chats/${encodeURIComponent(id)}`, abort.signal);
        histories.push(...history.messages.map((m) => ({ id, m })));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) sessionStorage.removeItem(slot(botId, kind));
      }
    }
    histories.sort((a, b) => a.m.created_at.localeCompare(b.m.created_at));
    for (const { id, m } of histories) {
      const turn = chatTurn(deps, m.question, m.images ?? []);
      turn.finish(m, id);
      log.append(turn.element);
    }
  }

  askButton.addEventListener('click', () => void ask());
  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void ask();
    }
    e.stopPropagation();
  });
  const element = h(
    'section',
    { class: 'panel chat bot-chat', 'aria-label': 'Chat' },
    h('h2', {}, 'Chat'),
    log,
    tray.element,
    question,
    notice,
    h('div', { class: 'chat-bar' }, askButton, caps.vision ? imagePicker((files) => tray.add(files)) : null),
  );
  if (caps.vision) {
    acceptDrops(element, (files) => tray.add(files));
    element.addEventListener('paste', (e) => {
      const images = imagesIn(e.clipboardData?.items);
      if (!images.length) return;
      e.preventDefault();
      tray.add(images);
    });
  }
  void restore().finally(() => (element.dataset.ready = 'true'));
  return { element, dispose: () => abort.abort() };
}

function imagePicker(onFiles: (files: File[]) => void): HTMLElement {
  const input = h('input', { type: 'file', multiple: true, accept: 'image/png,image/jpeg,image/webp,image/tiff', hidden: true, 'aria-label': 'Images to ask about' });
  input.addEventListener('change', () => {
    onFiles(Array.from(input.files ?? []));
    input.value = '';
  });
  return h('span', {}, h('button', { type: 'button', class: 'attach', onclick: () => input.click() }, 'Attach images…'), input);
}
