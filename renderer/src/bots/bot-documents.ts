import type { AppContext } from '../app-context.js';
import type { BotDetail, BotDocument, Job } from '../api/types.js';
import { h } from '../ui/dom.js';
import { label, when } from '../ui/format.js';
import { errorText } from '../ui/toast.js';
import { OPENABLE, pagesProgress, WORKING } from '../library/job-progress.js';
import { documentSources } from './document-sources.js';

/** Pages progress is read for at most this many working documents per poll. */
const PROGRESS_READS = 8;

const INGEST_TEXT: Record<BotDocument['ingest_status'], string> = {
  pending: 'waiting',
  processing: 'reading',
  success: 'searchable',
  failed: 'failed',
};

/** Where a document came from, in a few words: the link, the article, the file. */
function origin(d: BotDocument): string {
  const s = d.source ?? {};
  const text = (k: string) => (typeof s[k] === 'string' ? (s[k] as string) : '');
  switch (s.kind) {
    case 'link':
      return text('url');
    case 'encyclopedia':
      return `encyclopedia: ${text('title')}`;
    case 'chat_training':
      return 'learned from chats';
    case 'path':
      return text('path');
    case 'upload':
      return 'uploaded';
    default:
      return '';
  }
}

/** A held document waits for a person, not for the machine: it says so instead of "waiting". */
const ingestText = (d: BotDocument) =>
  d.status === 'ready_for_review' && d.ingest_status === 'pending'
    ? 'waiting for review'
    : INGEST_TEXT[d.ingest_status];

export interface BotDocumentsPanel {
  element: HTMLElement;
  dispose(): void;
}

/**
 * A bot's documents with their progress: GET /bots/{id} lists them with their job state and where they are on
 * the way to searchable; working ones also have their pages read (GET /jobs/{id}). Polled each second while
 * one works, as the library does, else every five. Each read document opens in the review desk.
 */
export function botDocuments(ctx: AppContext, botId: string, onBot: (bot: BotDetail) => void): BotDocumentsPanel {
  const { api } = ctx;
  let timer = 0;
  let disposed = false;
  let running: Promise<void> = Promise.resolve();
  let queued = false;
  const rows = h('tbody');
  const status = h('p', { class: 'muted', 'aria-live': 'polite' });

  function row(d: BotDocument, job: Job | undefined): HTMLElement {
    const review = `#/jobs/${encodeURIComponent(d.job_id)}/review`;
    const open = OPENABLE.has(d.status);
    const name = d.source_file;
    return h(
      'tr',
      { 'data-job': d.job_id, 'data-status': d.status, 'data-ingest': d.ingest_status },
      h(
        'td',
        {},
        open ? h('a', { href: review, class: 'doc-name' }, name) : name,
        h('div', { class: 'muted' }, origin(d)),
        h('div', { class: 'muted' }, `added ${when(d.created_at)}`),
      ),
      h(
        'td',
        {},
        h('span', { class: `badge job-${d.status}` }, label(d.status)),
        job?.error ? h('div', { class: 'error' }, job.error.message) : null,
      ),
      h('td', {}, h('span', { class: `badge ingest-${d.ingest_status}` }, ingestText(d))),
      h('td', {}, WORKING.has(d.status) && job ? pagesProgress(job) : ''),
      h('td', { class: 'actions' }, open ? h('a', { href: review, class: 'button' }, 'Review') : null),
    );
  }

  async function poll(): Promise<void> {
    clearTimeout(timer);
    if (disposed) return;
    let active = false;
    try {
      const bot = await api.get<BotDetail>(`/bots/${encodeURIComponent(botId)}`);
      onBot(bot);
      const docs = bot.document_list;
      active = docs.some((d) => WORKING.has(d.status));
      const working = docs.filter((d) => WORKING.has(d.status) || d.status === 'failed').slice(0, PROGRESS_READS);
      const jobs = new Map(
        (
          await Promise.all(
            working.map((d) => api.get<Job>(`/jobs/${encodeURIComponent(d.job_id)}`).catch(() => undefined)),
          )
        ).flatMap((j) => (j ? [[j.job_id, j] as const] : [])),
      );
      rows.replaceChildren(
        ...(docs.length
          ? docs.map((d) => row(d, jobs.get(d.job_id)))
          : [
              h(
                'tr',
                {},
                h('td', { colspan: 5, class: 'muted' }, 'No documents yet: add files, links or articles above.'),
              ),
            ]),
      );
      const ready = docs.filter((d) => d.ingest_status === 'success').length;
      status.textContent = `${ready} of ${docs.length} document(s) searchable`;
    } catch (err) {
      status.textContent = `Could not read the bot: ${errorText(err)}`;
    }
    if (!disposed) timer = window.setTimeout(refresh, active ? 1000 : 5000);
  }

  // One poll at a time: asked for mid-poll (an addition), the next one runs as soon as this one is done;
  // asked again before that, it is still one.
  function refresh(): void {
    if (queued) return;
    queued = true;
    running = running.then(() => {
      queued = false;
      return poll();
    });
  }

  const element = h('section', { class: 'panel bot-documents', 'aria-label': 'Documents' }, h('h2', {}, 'Documents'));
  element.append(
    documentSources(ctx, botId, element, refresh),
    status,
    h(
      'table',
      { class: 'jobs bot-docs' },
      h('thead', {}, h('tr', {}, ...['Document', 'Job', 'In the bot', 'Pages', ''].map((t) => h('th', {}, t)))),
      rows,
    ),
  );
  refresh();
  return {
    element,
    dispose() {
      disposed = true;
      clearTimeout(timer);
    },
  };
}
