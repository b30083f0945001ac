import type { Job } from '../api/types.js';
import { h } from '../ui/dom.js';

/** Job states with work running: a list of jobs polls each second while one is in them. */
export const WORKING = new Set<string>(['queued', 'processing', 'finalizing', 'embedding']);
/** Job states the review desk opens (the document has been read). */
export const OPENABLE = new Set<string>(['ready_for_review', 'finalized', 'indexed']);

/** A job's pages read so far: a bar and "3/12" ("?" while the page count is not known). */
export function pagesProgress(job: Job): HTMLElement {
  const { pages_done, total_pages } = job.progress;
  const bar = h('progress', {
    max: Math.max(total_pages, 1),
    value: pages_done,
    'aria-label': `${pages_done} of ${total_pages} pages`,
  });
  return h('span', { class: 'progress' }, bar, ` ${pages_done}/${total_pages || '?'}`);
}
