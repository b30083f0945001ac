import { multilingualOffer } from '../../../server/models/language-offer.js';
import type { AppContext } from '../app-context.js';
import type { EmbedAccepted, Job, ModelList, ModelStatus } from '../api/types.js';
import { h } from '../ui/dom.js';
import { errorText } from '../ui/toast.js';
import { missingModelOffer } from '../models/missing-model.js';
import { languageOfferView, offerDismissed } from './language-offer-view.js';

/** Progress of the job's current or last embed, from GET /jobs/{id}. */
function progressText(j: Job): string {
  const p = j.index?.progress;
  if (j.status === 'embedding') return p ? `Embedding ${p.chunks_embedded} / ${p.chunks_total} chunks…` : 'Embedding…';
  if (j.status === 'indexed' && j.index)
    return `Indexed: ${j.index.vectors} vectors in ${j.index.collection_name} (${j.index.model ?? 'model'}).`;
  return `The job is ${j.status}.`;
}

/** The select's options: the server's default, then the embedding models (installed ones selectable, the default first). */
function modelOptions(models: readonly ModelStatus[]): HTMLOptionElement[] {
  // The catalog also lists language models for chat: only embedding models belong here.
  const embedding = models.filter((m) => m.task === 'embedding');
  return [
    h('option', { value: '' }, 'Server default'),
    ...embedding
      .sort((a, b) => Number(b.default) - Number(a.default))
      .map((m) =>
        h(
          'option',
          { value: m.id, disabled: !m.installed },
          `${m.name}${m.default ? ' (default)' : ''}${m.installed ? '' : ' — not installed'}`,
        ),
      ),
  ];
}

/**
 * Embedding, shown only when the server has POST /jobs/{id}/embed: a model from GET /models (installed
 * ones selectable, the default first), then the job's progress until it is indexed. A document in another
 * language than English that an English-only model would embed first gets the offer of a multilingual one.
 */
export function embedPanel(
  ctx: AppContext,
  job: Job,
  onDone: () => void,
): { element: HTMLElement; dispose(): void } | null {
  if (!ctx.caps.embed) return null;
  const model = h(
    'select',
    { 'aria-label': 'Embedding model', class: 'embed-model' },
    h('option', { value: '' }, 'Server default'),
  );
  const status = h(
    'p',
    { class: 'muted embed-status', 'aria-live': 'polite' },
    job.index || job.status === 'embedding' ? progressText(job) : '',
  );
  const progress = h('progress', { max: 1, value: 0, hidden: true, 'aria-label': 'Embedding progress' });
  const offerSlot = h('div', { class: 'language-offer-slot' });
  let listed: ModelStatus[] = [];
  const loadModels = async (): Promise<void> => {
    listed = (await ctx.api.get<ModelList>('/models')).models;
    const chosen = model.value;
    model.replaceChildren(...modelOptions(listed));
    model.value = chosen;
  };
  // Offered before the first embed only: a job indexed already keeps its collection's model.
  const showOffer = (): void => {
    if (job.index || offerDismissed()) return void offerSlot.replaceChildren();
    const embeddingModel = model.value || listed.find((m) => m.task === 'embedding' && m.default)?.id || '';
    const offer = multilingualOffer(job.detected_language, embeddingModel, listed);
    if (!offer) return void offerSlot.replaceChildren();
    const use = async (id: string): Promise<void> => {
      // Downloaded just now, perhaps: its option is selectable only in a fresh list.
      await loadModels();
      model.value = id;
    };
    offerSlot.replaceChildren(languageOfferView(ctx, offer, use));
  };
  model.addEventListener('change', showOffer);
  if (ctx.caps.models)
    void loadModels()
      .then(showOffer, () => undefined)
      .then(() => (element.dataset.models = 'loaded'));
  let timer = 0;
  let stopped = false;
  const poll = async (): Promise<void> => {
    const j = await ctx.api.get<Job>(`/jobs/${encodeURIComponent(job.job_id)}`);
    status.textContent = progressText(j);
    const p = j.index?.progress;
    progress.hidden = !p || j.status !== 'embedding';
    if (p) {
      progress.max = Math.max(1, p.chunks_total);
      progress.value = p.chunks_embedded;
    }
    if (stopped) return;
    if (j.status === 'embedding')
      timer = window.setTimeout(() => void poll().catch((err: unknown) => (status.textContent = errorText(err))), 500);
    else if (!stopped) onDone();
  };
  const start = async () => {
    status.textContent = 'Starting…';
    try {
      const accepted = await ctx.api.send<EmbedAccepted>(
        'POST',
        `/jobs/${encodeURIComponent(job.job_id)}/embed`,
        model.value ? { model: model.value } : {},
      );
      status.textContent = `Embedding ${accepted.chunks.to_embed} chunk(s) with ${accepted.model} (${accepted.chunks.unchanged} unchanged)…`;
      await poll();
    } catch (err) {
      // A missing embedding model is offered for download; once installed, the embed starts again.
      const offer = missingModelOffer(ctx, err, start);
      status.replaceChildren(offer ?? errorText(err));
    }
  };
  if (job.status === 'embedding') void poll().catch(() => undefined);
  const element = h(
    'section',
    { class: 'panel embed' },
    h('h2', {}, 'Embed for search'),
    h(
      'p',
      { class: 'muted' },
      'Approved and edited chunks go into the job’s vector index; unchanged ones are not embedded again.',
    ),
    offerSlot,
    model,
    ' ',
    h(
      'button',
      {
        type: 'button',
        class: 'embed-button',
        disabled: job.status !== 'finalized' && job.status !== 'indexed',
        onclick: () => void start(),
      },
      job.status === 'indexed' ? 'Re-embed' : 'Embed',
    ),
    progress,
    status,
  );
  return {
    element,
    dispose() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
