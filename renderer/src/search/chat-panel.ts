import type { AppContext } from '../app-context.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { sourceLink, type SourceRef } from './source-link.js';
import { readSse } from './sse.js';

interface Turn {
  session_id?: string;
  turn_id?: string;
  thread_id?: string | null;
  answer?: string;
  status?: string;
  sources?: SourceRef[];
}

/**
 * Chat over an indexed job (issue 5), shown only when the server has /chat: answers stream in when the
 * server sends Server-Sent Events, citations open the cited block, and an answer held for approval can be
 * approved, edited or rejected here.
 */
export function chatPanel(ctx: AppContext, jobId: string): HTMLElement | null {
  if (!ctx.caps.chat) return null;
  let sessionId: string | undefined;
  const log = h('div', { class: 'chat-log', 'aria-live': 'polite' });
  const question = h('textarea', { rows: 2, 'aria-label': 'Question', placeholder: 'Ask about this document' });
  const approval = h('input', { type: 'checkbox', 'aria-label': 'Hold answers for approval' });

  async function session(): Promise<string> {
    sessionId ??= (await ctx.api.send<{ session_id: string }>('POST', '/chat/sessions', { job_id: jobId })).session_id;
    return sessionId;
  }

  function resumeBar(turn: Turn, answer: HTMLElement): HTMLElement | null {
    if (turn.status !== 'pending_review' || !turn.thread_id || !ctx.caps.chatResume) return null;
    const bar = h('div', { class: 'resume' });
    const resume = async (action: 'approve' | 'edit' | 'reject') => {
      const edited = action === 'edit' ? h('textarea', { rows: 4 }) : null;
      const send = async (edited_answer?: string) => {
        const done = await ctx.api.send<Turn>('POST', '/chat/resume', { session_id: turn.session_id ?? sessionId, thread_id: turn.thread_id, action, edited_answer });
        answer.textContent = done.answer ?? answer.textContent;
        bar.replaceChildren(h('span', { class: 'muted' }, `${action}d`));
      };
      if (edited) {
        edited.value = answer.textContent ?? '';
        bar.replaceChildren(edited, h('button', { type: 'button', onclick: () => void send(edited.value) }, 'Save answer'));
      } else await send();
    };
    bar.append(h('span', { class: 'badge warn' }, 'awaiting approval'), ...(['approve', 'edit', 'reject'] as const).map((a) => h('button', { type: 'button', onclick: () => void resume(a) }, a)));
    return bar;
  }

  async function ask(): Promise<void> {
    const q = question.value.trim();
    if (!q) return;
    question.value = '';
    const answer = h('div', { class: 'answer' });
    const sources = h('ol', { class: 'sources' });
    const turnEl = log.appendChild(h('article', { class: 'turn' }, h('p', { class: 'question' }, q), answer, sources));
    const show = (t: Turn) => {
      if (t.answer !== undefined) answer.textContent = t.answer;
      if (t.sources) sources.replaceChildren(...t.sources.map((s, i) => sourceLink(jobId, s, i + 1)));
      const bar = resumeBar(t, answer);
      if (bar) turnEl.append(bar);
    };
    try {
      const body = { session_id: await session(), job_id: jobId, question: q, require_approval: approval.checked, stream: true };
      const res = await ctx.api.stream('/chat', body);
      if (!res.headers.get('content-type')?.includes('text/event-stream') || !res.body) return show((await res.json()) as Turn);
      await readSse(res.body, (e) => {
        const data = JSON.parse(e.data) as Turn & { text?: string; token?: string; message?: string };
        if (e.event === 'sources') show({ sources: data.sources });
        else if (e.event === 'token') answer.textContent += data.token ?? data.text ?? '';
        else if (e.event === 'done') show(data);
        else if (e.event === 'error') answer.textContent = `Error: ${data.message ?? e.data}`;
      });
    } catch (err) {
      answer.textContent = `Error: ${errorText(err)}`;
    }
  }

  question.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void ask();
    }
    e.stopPropagation();
  });
  return h('section', { class: 'panel chat' }, h('h2', {}, 'Chat'), log, question, h('label', {}, approval, ' hold answers for approval'), h('button', { type: 'button', onclick: () => void ask() }, 'Ask'));
}
