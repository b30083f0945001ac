import type { AppContext, Screen } from '../app-context.js';
import type { FinalizePolicy, FinalizeResult, Job } from '../api/types.js';
import { openDialog } from '../ui/dialog.js';
import { h } from '../ui/dom.js';
import { label, when } from '../ui/format.js';
import { errorText, toast } from '../ui/toast.js';
import { embedPanel } from './embed-panel.js';
import { downloadExport } from './export-download.js';
import { finalizeErrorText, POLICIES, policyEffect, policyTitle } from './finalize-policy.js';

function countsTable(job: Job): HTMLElement {
  const r = job.review;
  if (!r) return h('p', { class: 'muted' }, `${job.total_blocks} blocks, ${job.total_chunks} chunks`);
  const cols = ['pending', 'approved', 'edited', 'rejected'] as const;
  return h(
    'table',
    { class: 'counts-table' },
    h('thead', {}, h('tr', {}, h('th', {}, ''), ...cols.map((c) => h('th', {}, c)), h('th', {}, 'stale'))),
    h(
      'tbody',
      {},
      h('tr', {}, h('th', {}, 'Blocks'), ...cols.map((c) => h('td', {}, r.blocks[c])), h('td', {}, '')),
      h('tr', {}, h('th', {}, 'Chunks'), ...cols.map((c) => h('td', {}, r.chunks[c])), h('td', {}, r.chunks.stale)),
    ),
  );
}

/** One radio per policy, with what it would do to this job's counts. */
function policyChoices(job: Job, chosen: FinalizePolicy): HTMLElement {
  return h(
    'fieldset',
    { class: 'policies' },
    h('legend', {}, 'What to do with what is still pending'),
    ...POLICIES.map((p) =>
      h(
        'label',
        { class: 'policy-option', 'data-policy': p.value },
        h('input', { type: 'radio', name: 'policy', value: p.value, checked: p.value === chosen }),
        h('span', { class: 'policy-title' }, p.title),
        h('span', { class: 'policy-effect muted' }, policyEffect(p.value, job)),
      ),
    ),
  );
}

/** Finalizing closes review for good: say what the policy will do, with counts read just now, and ask. */
function confirmFinalize(job: Job, policy: FinalizePolicy): Promise<boolean> {
  return openDialog({
    title: 'Finalize this job?',
    className: 'confirm-finalize',
    body: [
      h('p', {}, h('strong', {}, policyTitle(policy)), ': ', policyEffect(policy, job)),
      h('p', {}, 'Review then closes: the desk becomes read-only and blocks can no longer be changed.'),
    ],
    // No primary button: focus starts on Cancel, so Enter does not finalize.
    buttons: [
      { label: 'Cancel', value: false },
      { label: 'Finalize', value: true, kind: 'danger' },
    ],
    cancel: false,
  });
}

/**
 * Finalize with a policy the reviewer picks (the one that settles nothing is chosen at first), after a
 * confirmation that says what it will do; embed when the server can; download the export.
 */
export function finalizeScreen(ctx: AppContext, jobId: string): Screen {
  const path = `/jobs/${encodeURIComponent(jobId)}`;
  const element = h('section', { class: 'finalize', 'aria-label': 'Finalize and export' });
  let embed: ReturnType<typeof embedPanel> = null;
  let chosen: FinalizePolicy = 'require_all_approved';

  async function render(problem = ''): Promise<void> {
    const job = await ctx.api.get<Job>(path);
    const choices = policyChoices(job, chosen);
    choices.addEventListener('change', (e) => (chosen = (e.target as HTMLInputElement).value as FinalizePolicy));
    const error = h('p', { class: 'finalize-error error', role: 'alert' }, problem);
    const out = h('div', { class: 'export-result', 'aria-live': 'polite' });
    const finalized = job.status === 'finalized' || job.status === 'indexed';
    const finalize = async () => {
      const policy = chosen;
      error.textContent = '';
      try {
        // Counts as they are now: another reviewer may have worked since the screen was drawn.
        const fresh = await ctx.api.get<Job>(path);
        if (!(await confirmFinalize(fresh, policy))) return;
        const r = await ctx.api.send<FinalizeResult>('POST', `${path}/finalize`, { finalize_policy: policy });
        toast(`Finalized: ${policyTitle(r.finalize_policy).toLowerCase()}.`);
        await render();
      } catch (err) {
        // Shown in the panel (an alert), beside the choice it is about.
        await render(finalizeErrorText(err));
      }
    };
    const exportZip = () =>
      downloadExport(ctx, jobId, out).catch((err: unknown) => toast(`Export failed: ${errorText(err)}`, 'error'));
    embed?.dispose();
    embed = embedPanel(ctx, job, () => void render());
    element.replaceChildren(
      h(
        'div',
        { class: 'toolbar' },
        h('h1', {}, 'Finalize and export'),
        h('span', { class: `badge job-${job.status}` }, label(job.status)),
      ),
      countsTable(job),
      h(
        'section',
        { class: 'panel' },
        h('h2', {}, 'Finalize'),
        finalized
          ? h('p', {}, `Finalized ${when(job.finalized_at)}: ${policyTitle(job.finalize_policy ?? '').toLowerCase()}.`)
          : h(
              'div',
              {},
              choices,
              h(
                'button',
                {
                  type: 'button',
                  class: 'primary finalize-button',
                  disabled: job.status !== 'ready_for_review',
                  onclick: () => void finalize(),
                },
                'Finalize…',
              ),
              error,
            ),
      ),
      ...(embed ? [embed.element] : []),
      h(
        'section',
        { class: 'panel' },
        h('h2', {}, 'Export'),
        h('p', { class: 'muted' }, 'A zip of the reviewed blocks, chunks and document.md.'),
        h(
          'button',
          { type: 'button', class: 'export-button', disabled: !finalized, onclick: () => void exportZip() },
          'Download export',
        ),
        out,
      ),
    );
    element.dataset.status = job.status;
  }
  render().catch((err: unknown) => toast(`Could not load the job: ${errorText(err)}`, 'error'));
  return { element, dispose: () => embed?.dispose() };
}
