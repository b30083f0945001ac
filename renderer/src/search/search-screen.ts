import type { AppContext, Screen } from '../app-context.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { chatPanel } from '../chat/chat-panel.js';
import { jobTransport } from '../chat/job-transport.js';
import type { SearchResponse } from '../api/types.js';
import { sourceLink } from './source-link.js';

/**
 * Search and chat over an indexed job, side by side, each pane scrolling on its own (twenty results never
 * push the chat away); each result opens the review desk on its source block and shows its relevance.
 */
export function searchScreen(ctx: AppContext, jobId: string): Screen {
  const query = h('input', { type: 'search', 'aria-label': 'Search query', placeholder: 'Search this document' });
  const results = h('ol', { class: 'sources results' });
  const status = h('p', { class: 'muted', 'aria-live': 'polite' });
  const run = async () => {
    if (!query.value.trim()) return;
    status.textContent = 'Searching…';
    try {
      const res = await ctx.api.send<SearchResponse>('POST', '/search', {
        job_id: jobId,
        query: query.value.trim(),
        top_k: 20,
      });
      results.replaceChildren(...res.results.map((r) => sourceLink(jobId, r)));
      status.textContent = `${res.total} result(s)`;
    } catch (err) {
      status.textContent = errorText(err);
    }
  };
  query.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') void run();
    e.stopPropagation();
  });
  const search = ctx.caps.search
    ? h(
        'section',
        { class: 'panel search' },
        h('h2', {}, 'Search'),
        h('div', { class: 'search-bar' }, query, h('button', { type: 'button', onclick: () => void run() }, 'Search')),
        status,
        results,
      )
    : null;
  const chat = ctx.caps.chat ? chatPanel(ctx, jobTransport(ctx, jobId)) : null;
  const element = h(
    'section',
    { class: 'search-chat', 'aria-label': 'Search and chat' },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Search and chat')),
    search,
    chat?.element,
  );
  return { element, dispose: () => chat?.dispose() };
}
