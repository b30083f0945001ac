import { AUDIT_ACTIONS } from '../../../server/core/audit/actions.js';
import type { AppContext, Screen } from '../app-context.js';
import type { Revision } from '../api/types.js';
import { h } from '../ui/dom.js';
import { when } from '../ui/format.js';
import { isMissingJob, noSuchJob } from '../ui/no-such-job.js';
import { screenFrame } from '../ui/screen-frame.js';
import { errorText, toast } from '../ui/toast.js';
import { actionPhrase, auditCards, bulkTitle, itemLabel, type AuditCard } from './audit-groups.js';

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
    h(
      'div',
      { class: 'event-head' },
      h('strong', {}, actionPhrase(r.action)),
      ' ',
      h('span', { class: 'muted' }, `${when(r.timestamp)} · ${r.reviewer_id}`),
      ' ',
      h('span', {}, change(r)),
    ),
    r.edited_text !== null && r.edited_text !== r.original_text
      ? h('div', { class: 'event-text' }, h('del', {}, r.original_text ?? ''), h('ins', {}, r.edited_text))
      : null,
    r.edited_type ? h('div', { class: 'muted' }, `type: ${r.edited_type}`) : null,
    r.reviewer_note ? h('div', { class: 'event-note' }, `Note: ${r.reviewer_note}`) : null,
  );
}

/** A card's name: a block by its id (the desk shows it), a chunk by its words (its id says nothing), the job as such. */
function heading(type: string, entityId: string, text: string): string {
  if (type === 'job') return 'The job ';
  return type === 'chunk' && text ? 'chunk ' : `${type} ${entityId} `;
}

/**
 * The audit trail, newest first: a timeline per block or chunk, each bulk change (finalize settling every
 * pending chunk, a page approved at once) one folded card; filtered by item, action, reviewer, page and
 * words on the server (the desk's H key opens it filtered to one block).
 */
export function auditScreen(ctx: AppContext, jobId: string, params: URLSearchParams): Screen {
  const id = encodeURIComponent(jobId);
  const stop = (e: Event) => e.stopPropagation();
  // Each filter starts from the address, so a link (the desk's H key) opens the trail already filtered.
  const filterBox = (param: string, cls: string, label: string, attrs: Record<string, string | number> = {}) =>
    h('input', {
      type: 'search',
      class: cls,
      'aria-label': label,
      placeholder: label,
      value: params.get(param) ?? '',
      ...attrs,
    });
  const entity = filterBox('entity', 'filter-entity', 'Block or chunk id');
  const action = h(
    'select',
    { class: 'filter-action', 'aria-label': 'Action' },
    h('option', { value: '' }, 'Every action'),
    ...AUDIT_ACTIONS.map((a) => h('option', { value: a, selected: a === params.get('action') }, actionPhrase(a))),
  );
  const reviewers = h('datalist', { id: 'audit-reviewers' });
  const reviewer = filterBox('reviewer', 'filter-reviewer', 'Reviewer', { list: 'audit-reviewers' });
  const page = filterBox('page', 'filter-page', 'Page', { type: 'number', min: 1 });
  const words = filterBox('q', 'filter-text', 'Text', { placeholder: 'Words in the text or note' });
  const summary = h('span', { class: 'muted audit-count', 'aria-live': 'polite' });
  const groups = h('div', { class: 'timelines' });
  const more = h('button', { type: 'button', hidden: true }, 'Load older');
  let revisions: Revision[] = [];
  let total = 0;
  let generation = 0;
  const known = new Set<string>();

  const filtered = () => [entity, reviewer, page, words].some((i) => i.value.trim()) || action.value !== '';

  function query(): string {
    const q = new URLSearchParams();
    const put = (name: string, value: string) => value.trim() && q.set(name, value.trim());
    put('entity_id', entity.value);
    put('action', action.value);
    put('reviewer', reviewer.value);
    put('page', page.value);
    put('q', words.value);
    const s = q.toString();
    return s ? `&${s}` : '';
  }

  function itemCard(card: Extract<AuditCard, { kind: 'item' }>): HTMLElement {
    const link =
      card.entityType === 'block'
        ? h('a', { href: `#/jobs/${id}/review?block=${encodeURIComponent(card.entityId)}` }, 'open in review')
        : null;
    const text = itemLabel(card.revisions);
    return h(
      'section',
      { class: 'timeline', 'data-entity': card.entityId },
      h(
        'h2',
        { title: `${card.entityType} ${card.entityId}` },
        heading(card.entityType, card.entityId, text),
        text ? h('span', { class: 'item-text' }, `“${text}” `) : null,
        link,
      ),
      h('ol', {}, ...card.revisions.map(event)),
    );
  }

  function bulkCard(card: Extract<AuditCard, { kind: 'bulk' }>, touchesEnd: boolean): HTMLElement {
    // The items open only when asked: a finalize of thousands is one line until then.
    const items = h('ol', { class: 'bulk-items' });
    const box = h(
      'details',
      { class: `timeline bulk action-${card.action}`, 'data-action': card.action },
      h(
        'summary',
        {},
        h('strong', { class: 'bulk-title' }, bulkTitle(card, touchesEnd && revisions.length < total)),
        ' ',
        h('span', { class: 'muted' }, `${when(card.timestamp)} · ${card.reviewer}`),
      ),
      items,
    );
    box.addEventListener('toggle', () => {
      if (!box.open || items.childElementCount) return;
      items.append(
        ...card.revisions.map((r) =>
          h(
            'li',
            { 'data-entity': r.entity_id },
            r.entity_type === 'block'
              ? h('a', { href: `#/jobs/${id}/review?block=${encodeURIComponent(r.entity_id)}` }, r.entity_id)
              : h('span', { class: 'muted', title: r.entity_id }, r.entity_type),
            ' ',
            itemLabel([r]),
          ),
        ),
      );
    });
    return box;
  }

  function draw(): void {
    const cards = auditCards(revisions);
    groups.replaceChildren(
      ...(cards.length
        ? cards.map((c, i) => (c.kind === 'bulk' ? bulkCard(c, i === cards.length - 1) : itemCard(c)))
        : [h('p', { class: 'muted empty' }, filtered() ? 'No change matches these filters.' : 'No revisions yet.')]),
    );
    summary.textContent = total
      ? `${revisions.length < total ? `${revisions.length} newest of ` : ''}${total} change${total === 1 ? '' : 's'}`
      : '';
    more.hidden = revisions.length >= total;
    // The reviewers seen so far are offered in the reviewer filter.
    for (const r of revisions) {
      if (known.has(r.reviewer_id)) continue;
      known.add(r.reviewer_id);
      reviewers.append(h('option', { value: r.reviewer_id }));
    }
  }

  async function load(reset: boolean): Promise<void> {
    // Answers to an older filter are dropped: typing fast must not show the trail of what was typed before.
    const mine = ++generation;
    const skip = reset ? 0 : revisions.length;
    try {
      const got = await ctx.api.getPage<Revision>(`/jobs/${id}/audit?skip=${skip}&limit=${PAGE}${query()}`);
      if (mine !== generation) return;
      revisions = reset ? got.items : [...revisions, ...got.items];
      total = got.total;
      draw();
      element.dataset.loaded = 'true';
    } catch (err) {
      if (isMissingJob(err)) return void element.replaceChildren(noSuchJob(jobId));
      toast(`Could not load the audit trail: ${errorText(err)}`, 'error');
    }
  }
  for (const input of [entity, reviewer, page, words]) {
    input.addEventListener('change', () => void load(true));
    input.addEventListener('keydown', stop);
  }
  action.addEventListener('change', () => void load(true));
  more.addEventListener('click', () => void load(false));
  const element = screenFrame(
    { class: 'audit', title: 'Audit trail', toolbarClass: 'audit-filters' },
    [entity, action, reviewer, reviewers, page, words, summary],
    groups,
    more,
  );
  void load(true);
  return { element, dispose: () => undefined };
}
