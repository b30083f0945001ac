import type { AppContext } from '../app-context.js';
import type { ChatAnswer, ChatSession } from '../api/types.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { missingModelOffer } from '../models/missing-model.js';
import { highlightSource, NOT_FOUND_TEXT, renderAnswer } from './answer-text.js';
import { chunkBlocks } from './chunk-blocks.js';
import { sourceLink, type SourceRef } from './source-link.js';
import { streamedAnswer } from './sse.js';

type Sources = ChatAnswer['sources'];

/** Providers a reviewer can pick here; openai and ollama need a server address, set through the API. */
const PROVIDERS = [
  ['', 'Server default'],
  ['local', 'Local model'],
  ['extractive', 'Extractive (quotes, no language model)'],
] as const;

/**
 * Chat over an indexed job, shown only when the server has /chat: answers stream in over Server-Sent
 * Events, sources open the review desk on their first block, cited ones are marked, and an answer held
 * for approval is approved, edited or rejected here.
 */
export function chatPanel(ctx: AppContext, jobId: string): HTMLElement | null {
  if (!ctx.caps.chat) return null;
  let sessionId: string | undefined;
  const blocksOf = chunkBlocks(ctx.api, jobId);
  const log = h('div', { class: 'chat-log', 'aria-live': 'polite' });
  const question = h('textarea', { rows: 2, 'aria-label': 'Question', placeholder: 'Ask about this document' });
  const approval = h('input', { type: 'checkbox', class: 'hold', 'aria-label': 'Hold answers for approval' });
  const provider = h('select', { class: 'provider', 'aria-label': 'Answer with' }, ...PROVIDERS.map(([v, text]) => h('option', { value: v }, text)));

  async function session(): Promise<string> {
    sessionId ??= (await ctx.api.send<ChatSession>('POST', '/chat/sessions', { job_id: jobId })).session_id;
    return sessionId;
  }

  async function showSources(list: HTMLElement, sources: Sources, cited: Set<string>): Promise<void> {
    const blocks = await blocksOf();
    const refs: SourceRef[] = sources.map((s) => ({ ...s, block_ids: blocks.get(s.chunk_id) ?? [] }));
    list.replaceChildren(...refs.map((s) => sourceLink(jobId, s, cited.has(s.chunk_id))));
  }

  function resumeBar(turn: ChatAnswer, answer: HTMLElement): HTMLElement | null {
    if (turn.status !== 'pending_review' || !turn.thread_id || !ctx.caps.chatResume) return null;
    const bar = h('div', { class: 'resume' });
    const send = async (action: 'approve' | 'edit' | 'reject', edited_answer?: string) => {
      try {
        const done = await ctx.api.send<ChatAnswer>('POST', '/chat/resume', { session_id: turn.session_id, thread_id: turn.thread_id, action, ...(edited_answer ? { edited_answer } : {}) });
        answer.textContent = done.answer || '(rejected)';
        bar.replaceChildren(h('span', { class: 'badge resumed' }, `${action === 'edit' ? 'edited' : `${action}d`} by ${done.review?.reviewer_id ?? 'you'}`));
      } catch (err) {
        bar.append(h('span', { class: 'error' }, errorText(err)));
      }
    };
    const edit = () => {
      const box = h('textarea', { rows: 4, class: 'edited-answer', 'aria-label': 'Edited answer' });
      box.value = answer.textContent ?? '';
      box.addEventListener('keydown', (e) => e.stopPropagation());
      bar.replaceChildren(box, h('button', { type: 'button', class: 'primary', onclick: () => void send('edit', box.value) }, 'Save answer'));
      box.focus();
    };
    bar.append(
      h('span', { class: 'badge warn' }, 'awaiting approval'),
      h('button', { type: 'button', class: 'approve-answer', onclick: () => void send('approve') }, 'Approve'),
      h('button', { type: 'button', onclick: edit }, 'Edit'),
      h('button', { type: 'button', class: 'danger', onclick: () => void send('reject') }, 'Reject'),
    );
    return bar;
  }

  /** Asks the question box's question, or `again` (the same question after its model was installed). */
  async function ask(again?: string): Promise<void> {
    const q = again ?? question.value.trim();
    if (!q) return;
    if (again === undefined) question.value = '';
    const answer = h('div', { class: 'answer' });
    const sources = h('ol', { class: 'sources' });
    const turnEl = log.appendChild(h('article', { class: 'turn' }, h('p', { class: 'question' }, q), answer, sources));
    // The newest turn is what the reader looks at: keep it in view in the chat's own pane.
    const reveal = () => answer.scrollIntoView({ block: 'nearest' });
    reveal();
    const finish = async (t: ChatAnswer) => {
      const empty = t.status === 'complete' && !t.answer.trim();
      if (t.not_found || empty) {
        // Said plainly: a reader should never be left with a blank answer or a guess.
        turnEl.classList.add('not-found');
        answer.replaceChildren(h('strong', { class: 'not-found-label' }, 'Not found. '), empty ? NOT_FOUND_TEXT : t.answer);
      } else {
        renderAnswer(answer, t.answer, new Set(t.sources.map((s) => s.label)), (label) => highlightSource(sources, label));
      }
      await showSources(sources, t.sources, new Set(t.citations.map((c) => c.chunk_id)));
      const bar = resumeBar(t, answer);
      if (bar) turnEl.append(bar);
      reveal();
      turnEl.dataset.status = t.status;
    };
    try {
      const body = { session_id: await session(), question: q, require_approval: approval.checked, stream: true, ...(provider.value ? { llm_provider: provider.value } : {}) };
      const res = await ctx.api.stream('/chat', body);
      const done = await streamedAnswer<ChatAnswer, { sources?: Sources; text?: string; message?: string }>(res, (event, data, raw) => {
        if (event === 'sources' && data.sources) void showSources(sources, data.sources, new Set());
        else if (event === 'token') answer.textContent += data.text ?? '';
        else if (event === 'error') answer.textContent = `Error: ${data.message ?? raw}`;
      });
      if (done) await finish(done);
    } catch (err) {
      // A missing model is offered for download here; once installed, the same question is asked again.
      const offer = missingModelOffer(ctx, err, () => (turnEl.remove(), ask(q)));
      answer.replaceChildren(offer ? withQuotesInstead(offer, q) : `Error: ${errorText(err)}`);
      reveal();
    }
  }

  /** Beside the model download: answering at once with quotes from the document, which needs no model. */
  function withQuotesInstead(offer: HTMLElement, q: string): HTMLElement {
    const quotes = h(
      'button',
      {
        type: 'button',
        class: 'answer-with-quotes',
        onclick: () => {
          provider.value = 'extractive';
          void ask(q);
        },
      },
      'Answer with quotes instead',
    );
    offer.append(h('p', { class: 'quotes-instead' }, 'Or answer now with sentences quoted from the document (no model needed): ', quotes));
    return offer;
  }

  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void ask();
    }
    e.stopPropagation();
  });
  return h(
    'section',
    { class: 'panel chat' },
    h('h2', {}, 'Chat'),
    log,
    question,
    h('div', { class: 'chat-bar' }, provider, h('label', {}, approval, ' hold answers for approval'), h('button', { type: 'button', class: 'ask', onclick: () => void ask() }, 'Ask')),
  );
}
