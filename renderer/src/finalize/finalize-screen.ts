import type { AppContext, Screen } from '../app-context.js';
import { ApiError } from '../api/client.js';
import type { FinalizePolicy, FinalizeResult, Job } from '../api/types.js';
import { h } from '../ui/dom.js';
import { label, when } from '../ui/format.js';
import { errorText, toast } from '../ui/toast.js';
import { embedPanel } from './embed-panel.js';
import { downloadExport } from './export-download.js';

const POLICIES = [
  ['auto_approve_pending', 'Approve everything still pending'],
  ['auto_reject_pending', 'Reject everything still pending'],
  ['require_all_approved', 'Refuse while anything is pending'],
] as const satisfies readonly (readonly [FinalizePolicy, string])[];

function countsTable(job: Job): HTMLElement {
  const r = job.review;
  if (!r) return h('p', { class: 'muted' }, `${job.total_blocks} blocks, ${job.total_chunks} chunks`);
  const cols = ['pending', 'approved', 'edited', 'rejected'] as const;
  return h(
    'table',
    { class: 'counts-table' },
    h('thead', {}, h('tr', {}, h('th', {}, ''), ...cols.map((c) => h('th', {}, c)), h('th', {}, 'stale'))),
    h('tbody', {}, h('tr', {}, h('th', {}, 'Blocks'), ...cols.map((c) => h('td', {}, r.blocks[c])), h('td', {}, '')), h('tr', {}, h('th', {}, 'Chunks'), ...cols.map((c) => h('td', {}, r.chunks[c])), h('td', {}, r.chunks.stale))),
  );
}

/** Finalize with a chosen policy, embed when the server can, and download the export. */
export function finalizeScreen(ctx: AppContext, jobId: string): Screen {
  const element = h('section', { class: 'finalize', 'aria-label': 'Finalize and export' });
  let embed: ReturnType<typeof embedPanel> = null;

  async function render(): Promise<void> {
    const job = await ctx.api.get<Job>(`/jobs/${encodeURIComponent(jobId)}`);
    const policy = h('select', { 'aria-label': 'Finalize policy', class: 'policy' }, ...POLICIES.map(([v, text]) => h('option', { value: v }, text)));
    const out = h('div', { class: 'export-result', 'aria-live': 'polite' });
    const finalized = job.status === 'finalized' || job.status === 'indexed';
    const finalize = async () => {
      try {
        const r = await ctx.api.send<FinalizeResult>('POST', `/jobs/${encodeURIComponent(jobId)}/finalize`, { finalize_policy: policy.value });
        toast(`Finalized with ${label(r.finalize_policy)}.`);
        await render();
      } catch (err) {
        const pending = err instanceof ApiError && err.code === 'PENDING_ITEMS';
        toast(pending ? `Not finalized: items are still pending (${JSON.stringify(err.details)}).` : `Finalize failed: ${errorText(err)}`, 'error');
      }
    };
    const exportZip = () => downloadExport(ctx, jobId, out).catch((err: unknown) => toast(`Export failed: ${errorText(err)}`, 'error'));
    embed?.dispose();
    embed = embedPanel(ctx, job, () => void render());
    element.replaceChildren(
      h('div', { class: 'toolbar' }, h('h1', {}, 'Finalize and export'), h('span', { class: `badge job-${job.status}` }, label(job.status))),
      countsTable(job),
      h(
        'section',
        { class: 'panel' },
        h('h2', {}, 'Finalize'),
        finalized
          ? h('p', {}, `Finalized ${when(job.finalized_at)} with ${label(job.finalize_policy ?? '')}.`)
          : h('div', {}, policy, ' ', h('button', { type: 'button', class: 'primary finalize-button', disabled: job.status !== 'ready_for_review', onclick: () => void finalize() }, 'Finalize')),
      ),
      ...(embed ? [embed.element] : []),
      h('section', { class: 'panel' }, h('h2', {}, 'Export'), h('p', { class: 'muted' }, 'A zip of the reviewed blocks, chunks and document.md.'), h('button', { type: 'button', class: 'export-button', disabled: !finalized, onclick: () => void exportZip() }, 'Download export'), out),
    );
    element.dataset.status = job.status;
  }
  render().catch((err: unknown) => toast(`Could not load the job: ${errorText(err)}`, 'error'));
  return { element, dispose: () => embed?.dispose() };
}
