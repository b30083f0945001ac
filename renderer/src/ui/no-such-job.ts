import { ApiError } from '../api/client.js';
import { h } from './dom.js';

/** Whether an API failure means the job is not there (deleted, or a wrong link). */
export const isMissingJob = (err: unknown): boolean => err instanceof ApiError && err.status === 404;

/** What a job screen shows for a job the server does not have: say so, and the way back. */
export function noSuchJob(jobId: string): HTMLElement {
  return h(
    'div',
    { class: 'panel no-such-job', role: 'alert' },
    h('h2', {}, 'No such job'),
    h('p', {}, `This server has no job “${jobId}”: it was deleted, or the link is wrong.`),
    h('a', { href: '#/', class: 'button primary' }, 'Back to the library'),
  );
}
