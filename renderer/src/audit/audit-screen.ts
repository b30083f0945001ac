import type { AppContext, Screen } from '../app-context.js';
import type { ListPage, Revision } from '../api/types.js';
import { h } from '../ui/dom.js';
import { when } from '../ui/format.js';
import { errorText, toast } from '../ui/toast.js';

const PAGE = 500;

function change(r: Revision): string {
  const before = r.before?.['status'];
  const after = r.after?.['status'];
  return typeof before === 'string' && typeof after === 'string' && before !== after ? `${before} → ${after}` : '';
}

function event(r: Revision): HTMLElement {
  return h(
    'li',
    { class: `event action-${r.action}` },
    h('div', { class: 'event-head' }, h('strong', {}, r.action), ' ', h('span', { class: 'muted' }, `${when(r.timestamp)} · ${r.reviewer_id}`), ' ', h('span', {}, change(r))),
    r.edited_text !== null && r.edited_text !== r.original_text ? h('div', { class: 'event-text' }, h('del', {}, r.original_text ?? ''), h('ins', {}, r.edited_text)) : null,
    r.edited_type ? h('div', { class: 'muted' }, `type: ${r.edited_type}`) : null,
    r.reviewer_note ? h('div', { class: 'event-note' }, `Note: ${r.reviewer_note}`) : null,
  );
}

/**
 * The audit trail as a timeline per block (or chunk): revisions grouped by what they changed, newest
 * first, filterable to one item (the review desk's H key opens it filtered).
 */
export function auditScreen(ctx: AppContext, jobId: string, params: URLSearchParams): Screen {
  const id = encodeURIComponent(jobId);
  const filter = h('input', { type: 'search', 'aria-label': 'Block or chunk id', placeholder: 'Block or chunk id', value: params.get('entity') ?? '' });
  const groups = h('div', { class: 'timelines' });
  const more = h('button', { type: 'button', hidden: true }, 'Load older');
  let revisions: Revision[] = [];
  let total = 0;

  function draw(): void {
    const byEntity = new Map<string, Revision[]>();
    for (const r of revisions) byEntity.set(`${r.entity_type} ${r.entity_id}`, [...(byEntity.get(`${r.entity_type} ${r.entity_id}`) ?? []), r]);
    groups.replaceChildren(
      ...(byEntity.size
        ? [...byEntity].map(([key, list]) => {
            const [type, entity] = key.split(' ') as [string, string];
            const link = type === 'block' ? h('a', { href: `#/jobs/${id}/review?block=${encodeURIComponent(entity)}` }, 'open in review') : null;
            return h('section', { class: 'timeline', 'data-entity': entity }, h('h2', {}, `${type} ${entity} `, link), h('ol', {}, ...list.map(event)));
          })
        : [h('p', { class: 'muted' }, 'No revisions yet.')]),
    );
    more.hidden = revisions.length >= total;
  }

  async function load(reset: boolean): Promise<void> {
    if (reset) revisions = [];
    const q = filter.value.trim() ? `&entity_id=${encodeURIComponent(filter.value.trim())}` : '';
    try {
      const page = await ctx.api.get<ListPage<Revision>>(`/jobs/${id}/audit?skip=${revisions.length}&limit=${PAGE}${q}`);
      revisions = [...revisions, ...page.items];
      total = page.total;
      draw();
      element.dataset.loaded = 'true';
    } catch (err) {
      toast(`Could not load the audit trail: ${errorText(err)}`, 'error');
    }
  }
  filter.addEventListener('change', () => void load(true));
  more.addEventListener('click', () => void load(false));
  const element = h('section', { class: 'audit', 'aria-label': 'Audit trail' }, h('div', { class: 'toolbar' }, h('h1', {}, 'Audit trail'), filter), groups, more);
  void load(true);
  return { element, dispose: () => undefined };
}
