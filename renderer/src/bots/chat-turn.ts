import type { Api } from '../api/client.js';
import type { BotMessage } from '../api/types.js';
import { h } from '../ui/dom.js';
import { answerFeedback } from './answer-feedback.js';
import { citationList } from './citation-links.js';

export interface ChatTurn {
  element: HTMLElement;
  /** Text as it streams in. */
  append(text: string): void;
  /** What is happening meanwhile (retrieval done, images being read). */
  say(text: string): void;
  /** The stored message: answer, citations, web sources, and the thumbs once it is complete. */
  finish(m: BotMessage, chatId: string): void;
  fail(message: string): void;
}

const answerText = (a: unknown): string => (typeof a === 'string' ? a : a === null || a === undefined ? '' : JSON.stringify(a, null, 2));

/** What a vision question carried: the files just sent (shown), or the names the history keeps. */
type Images = File[] | { name: string }[];

export interface TurnDeps {
  api: Api;
  blocksOf: (jobId: string) => Promise<Map<string, string[]>>;
  /** The server takes ratings. */
  feedback: boolean;
}

/** One question and its answer in a bot's chat log. */
export function chatTurn({ api, blocksOf, feedback }: TurnDeps, question: string, images: Images = []): ChatTurn {
  const answer = h('div', { class: 'answer' });
  const note = h('p', { class: 'muted turn-note' });
  const pictures = images.length
    ? h(
        'div',
        { class: 'turn-images' },
        ...images.map((f) => (f instanceof File ? h('img', { src: URL.createObjectURL(f), alt: f.name, title: f.name }) : h('span', { class: 'badge' }, f.name))),
      )
    : null;
  const element = h('article', { class: 'turn', 'data-status': 'asking' }, h('p', { class: 'question' }, question), pictures, answer, note);
  return {
    element,
    append(text) {
      element.dataset.status = 'streaming';
      answer.textContent += text;
    },
    say(text) {
      note.textContent = text;
    },
    finish(m, chatId) {
      answer.textContent = answerText(m.response ?? m.answer) || (m.not_found ? 'Not found in this bot\'s documents.' : '');
      element.classList.toggle('not-found', m.not_found);
      note.textContent = m.error ? `Error: ${m.error.message}` : m.status === 'complete' ? '' : m.status;
      if (m.citations.length) element.append(citationList(m.citations, blocksOf));
      if (m.web_sources.length) {
        element.append(h('ul', { class: 'web-sources' }, ...m.web_sources.map((w) => h('li', {}, h('span', {}, w.title), ' ', h('span', { class: 'muted' }, w.url)))));
      }
      if (feedback && m.status === 'complete') element.append(answerFeedback(api, chatId, m.message_id));
      element.dataset.message = m.message_id;
      element.dataset.status = m.status;
    },
    fail(message) {
      note.textContent = `Error: ${message}`;
      note.className = 'error turn-note';
      element.dataset.status = 'failed';
    },
  };
}
