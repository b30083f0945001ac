import { h } from '../ui/dom.js';

export interface SourceRef {
  chunk_id: string;
  label?: string;
  text: string;
  score?: number;
  page_numbers?: number[];
  block_ids?: string[];
  section_path?: string[];
}

/** A search hit or a chat source: opens the review desk on its first block (selected), else its page. */
export function sourceLink(jobId: string, s: SourceRef, cited = false): HTMLElement {
  const id = encodeURIComponent(jobId);
  const first = s.block_ids?.[0];
  const href = first ? `#/jobs/${id}/review?block=${encodeURIComponent(first)}` : `#/jobs/${id}/review?page=${s.page_numbers?.[0] ?? 1}`;
  return h(
    'li',
    { class: `source${cited ? ' cited' : ''}`, 'data-chunk': s.chunk_id },
    h('a', { href }, `${s.label ? `[${s.label}] ` : ''}${s.section_path?.join(' › ') || s.chunk_id}`),
    cited ? h('span', { class: 'badge cited-mark' }, 'cited') : null,
    h('span', { class: 'muted' }, ` pp. ${(s.page_numbers ?? []).join(', ')}${s.score !== undefined ? ` · score ${s.score.toFixed(3)}` : ''}`),
    h('div', { class: 'source-text' }, s.text),
  );
}
