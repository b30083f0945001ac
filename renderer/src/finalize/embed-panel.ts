import type { AppContext } from '../app-context.js';
import type { Job } from '../api/types.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';

interface ModelInfo {
  id?: string;
  name?: string;
  kind?: string;
  installed?: boolean;
}

/**
 * Embedding, shown only when the server has POST /jobs/{id}/embed (issue 4): a model from GET /models
 * when the server lists them, then the job's progress until it is indexed.
 */
export function embedPanel(ctx: AppContext, job: Job, onChange: () => void): HTMLElement | null {
  if (!ctx.caps.embed) return null;
  const model = h('select', { 'aria-label': 'Embedding model', class: 'embed-model' }, h('option', { value: '' }, 'Server default'));
  const status = h('p', { class: 'muted embed-status' });
  if (ctx.caps.models) {
    void ctx.api
      .get<{ items?: ModelInfo[] } | ModelInfo[]>('/models')
      .then((res) => {
        const items = Array.isArray(res) ? res : (res.items ?? []);
        for (const m of items.filter((x) => !x.kind || x.kind === 'embedding')) {
          const id = m.id ?? m.name ?? '';
          if (id) model.append(h('option', { value: id }, `${id}${m.installed === false ? ' (not installed)' : ''}`));
        }
      })
      .catch(() => undefined);
  }
  const poll = async () => {
    const j = await ctx.api.get<Job>(`/jobs/${encodeURIComponent(job.job_id)}`);
    const p = j.embedding;
    status.textContent = p ? `Embedding ${p.done} / ${p.total} chunks… (${j.status})` : `Job is ${j.status}.`;
    if (j.status === 'indexed' || j.status === 'failed') return onChange();
    setTimeout(() => void poll().catch((err: unknown) => (status.textContent = errorText(err))), 1000);
  };
  const start = async () => {
    status.textContent = 'Starting…';
    try {
      await ctx.api.send('POST', `/jobs/${encodeURIComponent(job.job_id)}/embed`, model.value ? { model: model.value } : {});
      await poll();
    } catch (err) {
      status.textContent = errorText(err);
    }
  };
  const can = job.status === 'finalized';
  return h(
    'section',
    { class: 'panel embed' },
    h('h2', {}, 'Embed for search'),
    h('p', { class: 'muted' }, 'Approved and edited chunks are embedded into the job’s vector index.'),
    model,
    h('button', { type: 'button', disabled: !can, onclick: () => void start() }, job.status === 'indexed' ? 'Re-embed' : 'Embed'),
    status,
  );
}
