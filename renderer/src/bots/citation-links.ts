import type { Api } from '../api/client.js';
import type { BotCitation } from '../api/types.js';
import { chunkBlocks } from '../chat/chunk-blocks.js';
import { h } from '../ui/dom.js';

/** Chunk -> blocks of each job a bot's answers cite, each job's chunk list read once per pane. */
export function citedBlocks(api: Api): (jobId: string) => Promise<Map<string, string[]>> {
  const jobs = new Map<string, () => Promise<Map<string, string[]>>>();
  return (jobId) => {
    let load = jobs.get(jobId);
    if (!load) jobs.set(jobId, (load = chunkBlocks(api, jobId)));
    return load();
  };
}

/** The review desk on the cited page, with the chunk's first block selected (outlined on the page) once known. */
function citationHref(c: BotCitation, blockId?: string): string {
  const page = c.page_numbers[0];
  const params = new URLSearchParams();
  if (page !== undefined) params.set('page', String(page));
  if (blockId) params.set('block', blockId);
  const q = params.toString();
  return `#/jobs/${encodeURIComponent(c.job_id)}/review${q ? `?${q}` : ''}`;
}

/**
 * An answer's citations: each names its source and pages and quotes what it supports. One from a document
 * opens the review desk on its page with the cited block highlighted; an image of a vision question (no
 * job) is listed as what it is.
 */
export function citationList(
  citations: BotCitation[],
  blocksOf: (jobId: string) => Promise<Map<string, string[]>>,
): HTMLElement {
  const items = citations.map((c, i) => {
    const pages = c.page_numbers.length ? ` · p. ${c.page_numbers.join(', ')}` : '';
    const name = `[${i + 1}] ${c.source}${pages}`;
    const link = c.job_id
      ? h('a', { href: citationHref(c), class: 'citation-link' }, name)
      : h('span', { class: 'citation-link' }, name);
    if (c.job_id && link instanceof HTMLAnchorElement) {
      // The link works at once (the page); it gains the block when the job's chunk list has been read.
      void blocksOf(c.job_id).then((map) => {
        const first = map.get(c.chunk_id)?.[0];
        if (first) link.href = citationHref(c, first);
        link.dataset.block = first ?? '';
      });
    }
    return h(
      'li',
      { class: 'citation', 'data-chunk': c.chunk_id, 'data-job': c.job_id },
      link,
      c.quote ? h('blockquote', { class: 'quote' }, c.quote) : null,
    );
  });
  return h('ol', { class: 'citations' }, ...items);
}
