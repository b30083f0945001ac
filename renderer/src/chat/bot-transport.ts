import type { AppContext } from '../app-context.js';
import type { BotMessage, ConversationSummary } from '../api/types.js';
import { citationList, citedBlocks } from '../bots/citation-links.js';
import { imagesIn, imageTray } from '../bots/image-tray.js';
import { acceptDrops } from '../library/upload.js';
import { streamedAnswer } from '../search/sse.js';
import { h } from '../ui/dom.js';
import type { ChatTransport, TurnFacts } from './chat-transport.js';
import type { LiveTurn } from './turn-view.js';

const answerText = (a: unknown): string =>
  typeof a === 'string' ? a : a === null || a === undefined ? '' : JSON.stringify(a, null, 2);

/**
 * A bot's chat: its chats (text and vision) are the conversations. Text answers stream (Server-Sent Events,
 * read as the jobs chat reads them); images dropped, pasted or attached make the question a vision question
 * (not streamed: the images are read by OCR first), asked in a vision chat: the server keeps the two kinds
 * apart, so a question of the other kind than the open chat's starts a new conversation. Citations open the
 * cited page in the review desk with the block highlighted.
 */
export function botTransport(ctx: AppContext, botId: string): ChatTransport<BotMessage> {
  const { api, caps } = ctx;
  const bot = encodeURIComponent(botId);
  const blocksOf = citedBlocks(api);
  let notify: (text: string) => void = () => undefined;
  let sending = false;
  // A change of the tray clears an earlier refusal, but not what the panel said about the question just sent.
  const tray = imageTray(
    (why) => notify(why),
    () => sending || notify(''),
  );

  const kindOfNext = () => (tray.files().length ? 'vision' : 'text');

  async function streamed(
    id: string,
    query: string,
    hold: boolean,
    live: LiveTurn,
    signal: AbortSignal,
  ): Promise<BotMessage | undefined> {
    const res = await api.stream(
      `/bots/${bot}/chats/${encodeURIComponent(id)}`,
      { query, stream: true, ...(hold ? { require_approval: true } : {}) },
      signal,
    );
    return streamedAnswer<BotMessage, { sources?: unknown[]; text?: string; message?: string }>(
      res,
      (event, data, raw) => {
        if (event === 'sources')
          live.say(
            data.sources?.length ? `Answering from ${data.sources.length} passage(s)…` : 'Nothing relevant found.',
          );
        else if (event === 'token') live.append(data.text ?? '');
        else if (event === 'error') live.fail(data.message ?? raw);
      },
    );
  }

  async function vision(
    id: string,
    query: string,
    files: File[],
    live: LiveTurn,
    signal: AbortSignal,
  ): Promise<BotMessage> {
    const form = new FormData();
    form.append('query', query);
    for (const f of files) form.append('file', f, f.name);
    live.say(`Reading ${files.length} image(s) and answering…`);
    return api.sendForm<BotMessage>(`/bots/${bot}/vision-chats/${encodeURIComponent(id)}`, form, signal);
  }

  const picker = caps.vision ? imagePicker((files) => tray.add(files)) : null;
  return {
    kind: 'bot',
    placeholder: caps.vision ? 'Ask the bot (drop or paste images to ask about them)' : 'Ask the bot',
    controls: picker ? [picker] : [],
    tray: tray.element,
    emptyQuestion: () => (tray.files().length ? 'Write a question about the image(s).' : null),
    list: async (signal) =>
      (await api.get<{ conversations: ConversationSummary[] }>(`/bots/${bot}/conversations`, signal)).conversations,
    history: async (id, signal) =>
      (await api.get<{ messages: BotMessage[] }>(`/chats/${encodeURIComponent(id)}`, signal)).messages,
    async start() {
      if (kindOfNext() === 'text') return (await api.send<{ chat_id: string }>('POST', `/bots/${bot}/chats`)).chat_id;
      return (await api.send<{ vision_chat_id: string }>('POST', `/bots/${bot}/vision-chats`)).vision_chat_id;
    },
    async ask(id, q, live, signal) {
      const files = tray.files();
      sending = true;
      tray.clear();
      sending = false;
      live.showImages(files);
      return files.length ? vision(id, q.text, files, live, signal) : streamed(id, q.text, q.hold, live, signal);
    },
    needsNew: (open) =>
      open.kind === kindOfNext()
        ? null
        : open.kind === 'text'
          ? 'Images are asked about in a conversation of their own: a new one is started.'
          : 'Questions without images start a new conversation.',
    facts: (m): TurnFacts => ({
      id: m.message_id,
      question: m.question,
      answer: answerText(m.response ?? m.answer),
      status: m.status,
      notFound: m.not_found,
      error: m.error?.message ?? null,
      rating: m.rating ?? null,
      threadId: m.thread_id ?? null,
      review: m.review ?? null,
      images: m.images ?? [],
    }),
    showSources(m, parts) {
      if (m.citations.length) parts.sources.append(citationList(m.citations, blocksOf));
      if (m.web_sources.length) {
        parts.sources.append(
          h(
            'ul',
            { class: 'web-sources' },
            ...m.web_sources.map((w) => h('li', {}, h('span', {}, w.title), ' ', h('span', { class: 'muted' }, w.url))),
          ),
        );
      }
    },
    rate: caps.feedback
      ? async (id, messageId, rating) =>
          void (await api.send(
            'POST',
            `/chats/${encodeURIComponent(id)}/messages/${encodeURIComponent(messageId)}/feedback`,
            { rating },
          ))
      : null,
    resume: caps.botResume
      ? (id, threadId, action, edited) =>
          api.send<BotMessage>('POST', `/chats/${encodeURIComponent(id)}/resume`, {
            thread_id: threadId,
            action,
            ...(edited ? { edited_answer: edited } : {}),
          })
      : null,
    attach(panel, say) {
      notify = say;
      if (!caps.vision) return;
      acceptDrops(panel, (files) => tray.add(files));
      panel.addEventListener('paste', (e) => {
        const images = imagesIn(e.clipboardData?.items);
        if (!images.length) return;
        e.preventDefault();
        tray.add(images);
      });
    },
  };
}

function imagePicker(onFiles: (files: File[]) => void): HTMLElement {
  const input = h('input', {
    type: 'file',
    multiple: true,
    accept: 'image/png,image/jpeg,image/webp,image/tiff',
    hidden: true,
    'aria-label': 'Images to ask about',
  });
  input.addEventListener('change', () => {
    onFiles(Array.from(input.files ?? []));
    input.value = '';
  });
  return h(
    'span',
    {},
    h('button', { type: 'button', class: 'attach', onclick: () => input.click() }, 'Attach images…'),
    input,
  );
}
