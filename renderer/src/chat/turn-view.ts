import { h } from '../ui/dom.js';
import { NOT_FOUND_TEXT } from './answer-text.js';
import { answerFeedback } from './answer-feedback.js';
import type { ChatTransport } from './chat-transport.js';
import { resumeBar } from './resume-bar.js';

/** The parts of a turn a chat's sources are drawn into. */
export interface TurnParts {
  element: HTMLElement;
  answer: HTMLElement;
  /** Under the answer: the sources or citations. */
  sources: HTMLElement;
}

/** A turn while it is asked: its answer streams in, with notes on what is happening meanwhile. */
export interface LiveTurn extends TurnParts {
  append(text: string): void;
  say(text: string): void;
  fail(message: string): void;
  /** The images sent with the question (files while asking, names from the history). */
  showImages(images: readonly (File | { name: string })[]): void;
}

/** One question and its answer in the log, before the answer is known. */
export function turnView(question: string): LiveTurn {
  const answer = h('div', { class: 'answer' });
  const note = h('p', { class: 'muted turn-note' });
  const sources = h('div', { class: 'turn-sources' });
  const images = h('div', { class: 'turn-images', hidden: true });
  const element = h(
    'article',
    { class: 'turn', 'data-status': 'asking' },
    h('p', { class: 'question' }, question),
    images,
    answer,
    note,
    sources,
  );
  return {
    element,
    answer,
    sources,
    append(text) {
      element.dataset.status = 'streaming';
      answer.textContent += text;
    },
    say(text) {
      note.textContent = text;
    },
    fail(message) {
      note.textContent = `Error: ${message}`;
      note.className = 'error turn-note';
      element.dataset.status = 'failed';
    },
    showImages(list) {
      images.hidden = list.length === 0;
      images.replaceChildren(
        ...list.map((f) =>
          f instanceof File
            ? h('img', { src: URL.createObjectURL(f), alt: f.name, title: f.name })
            : h('span', { class: 'badge' }, f.name),
        ),
      );
    },
  };
}

const PAST = { approve: 'approved', edit: 'edited', reject: 'rejected' } as const;

/**
 * Draws a stored turn into `live`: its answer (or "not found" said plainly: a reader should never be left
 * with a blank answer or a guess), its sources, who approved it, the approval buttons while it is held, and
 * the ratings once it is complete. A resumed answer is drawn again in the same element.
 */
export function finishTurn<T>(live: LiveTurn, turn: T, chat: ChatTransport<T>, conversationId: string): void {
  const f = chat.facts(turn);
  const { element, answer, sources } = live;
  element
    .querySelectorAll(':scope > .resume, :scope > .feedback, :scope > .badge.resumed')
    .forEach((el) => el.remove());
  const empty = f.status === 'complete' && !f.answer.trim();
  element.classList.toggle('not-found', f.notFound || empty);
  if (f.notFound || empty)
    answer.replaceChildren(h('strong', { class: 'not-found-label' }, 'Not found. '), f.answer.trim() || NOT_FOUND_TEXT);
  else answer.textContent = f.status === 'rejected' ? '(rejected)' : f.answer;
  sources.replaceChildren();
  chat.showSources(turn, live);
  // The files just sent stay as they were shown; a turn read from the history has only their names.
  if (f.images.length && !element.querySelector('.turn-images > *')) live.showImages(f.images);
  live.say(f.status === 'complete' || f.status === 'pending_review' || f.status === 'rejected' ? '' : f.status);
  if (f.error) live.fail(f.error.replace(/^Error: /, ''));
  if (f.review)
    element.append(h('span', { class: 'badge resumed' }, `${PAST[f.review.action]} by ${f.review.reviewer_id}`));
  const { resume, rate } = chat;
  if (f.status === 'pending_review' && f.threadId && resume) {
    const threadId = f.threadId;
    element.append(
      resumeBar(f.answer, async (action, edited) =>
        finishTurn(live, await resume(conversationId, threadId, action, edited), chat, conversationId),
      ),
    );
  }
  if (rate && f.status === 'complete') element.append(answerFeedback((r) => rate(conversationId, f.id, r), f.rating));
  element.dataset.message = f.id;
  element.dataset.status = f.error ? 'failed' : f.status;
}
