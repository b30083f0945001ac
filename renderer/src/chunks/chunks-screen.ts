import type { AppContext, Screen } from '../app-context.js';
import { loadAll } from '../api/load-all.js';
import type { Chunk, RechunkResult } from '../api/types.js';
import { h, isTyping } from '../ui/dom.js';
import { label } from '../ui/format.js';
import { screenFrame } from '../ui/screen-frame.js';
import { errorText, toast } from '../ui/toast.js';
import { VirtualList } from '../ui/virtual-list.js';
import { chunkText, patchChunk, type ChunkChange } from './chunk-actions.js';

const ROW = 96;
const EDIT = 300;

/**
 * Chunks: section path, pages, type, tokens, review status and a stale marker once a block they came
 * from changed; approve, reject and edit (same keys as the review desk); rechunk rebuilds stale ones.
 */
export function chunksScreen(ctx: AppContext, jobId: string): Screen {
  const id = encodeURIComponent(jobId);
  let chunks: Chunk[] = [];
  let pos = 0;
  let editing = -1;
  const stale = h('span', { class: 'badge warn', hidden: true });
  const rechunk = h('button', { type: 'button', class: 'rechunk', onclick: () => void doRechunk() }, 'Rechunk');
  const summary = h('span', { class: 'muted counts' });

  const list = new VirtualList({
    label: 'Chunks',
    count: () => chunks.length,
    heightOf: (i) => (i === editing ? EDIT : ROW),
    keyOf: (i) => `${chunks[i]?.chunk_id}:${chunks[i]?.version}:${chunks[i]?.stale}:${i === pos}:${i === editing}`,
    render: (i) => (i === editing ? editor(i) : row(i)),
  });

  function row(i: number): HTMLElement {
    const c = chunks[i]!;
    return h(
      'div',
      {
        class: `row chunk-row status-${c.status}${i === pos ? ' selected' : ''}`,
        role: 'option',
        'aria-selected': String(i === pos),
        'data-chunk': c.chunk_id,
        onclick: () => select(i),
      },
      h(
        'div',
        { class: 'row-meta' },
        h('span', { class: 'num' }, `#${c.order_index + 1}`),
        h('span', { class: 'badge' }, label(c.chunk_type)),
        h('span', { class: `badge status status-${c.status}` }, c.status),
        c.stale ? h('span', { class: 'badge warn stale' }, 'stale') : null,
        h('span', { class: 'muted' }, `pp. ${c.page_numbers.join(', ')} · ${c.token_count} tokens`),
      ),
      h('div', { class: 'section-path muted' }, c.section_path.join(' › ') || '(no section)'),
      h('div', { class: 'row-text' }, chunkText(c)),
    );
  }

  function editor(i: number): HTMLElement {
    const c = chunks[i]!;
    const text = h('textarea', { class: 'edit-text', rows: 9, 'aria-label': 'Chunk text' });
    text.value = chunkText(c);
    const save = () => void change(i, { edited_text: text.value === c.original_text ? null : text.value });
    const el = h(
      'div',
      { class: 'row chunk-row editing selected' },
      h('div', { class: 'muted' }, 'Ctrl+Enter saves, Esc cancels'),
      text,
      h(
        'div',
        { class: 'edit-bar' },
        h('button', { type: 'button', onclick: () => stopEdit() }, 'Cancel'),
        h('button', { type: 'button', class: 'primary', onclick: save }, 'Save'),
      ),
    );
    el.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) save();
      else if (e.key === 'Escape') stopEdit();
      e.stopPropagation();
    });
    queueMicrotask(() => text.focus());
    return el;
  }

  function select(i: number): void {
    pos = Math.max(0, Math.min(i, chunks.length - 1));
    if (editing !== pos) editing = -1;
    list.invalidate();
    list.scrollToIndex(pos);
  }

  function stopEdit(): void {
    editing = -1;
    list.invalidate();
    list.element.focus();
  }

  function showSummary(): void {
    const n = chunks.filter((c) => c.stale).length;
    stale.hidden = !n;
    stale.textContent = `${n} stale`;
    rechunk.disabled = !n;
    summary.textContent = `${chunks.length} chunks · ${chunks.filter((c) => c.status === 'pending').length} pending`;
  }

  async function change(i: number, ch: ChunkChange): Promise<void> {
    const c = chunks[i];
    if (!c) return;
    try {
      const after = await patchChunk(ctx.api, jobId, c, ch);
      if (after) chunks[i] = after;
      if (ch.edited_text !== undefined) editing = -1;
      if (ch.status) pos = Math.min(pos + 1, chunks.length - 1);
    } catch (err) {
      toast(`Could not save chunk ${c.chunk_id}: ${errorText(err)}`, 'error');
    }
    list.invalidate();
    list.scrollToIndex(pos);
    showSummary();
  }

  async function doRechunk(): Promise<void> {
    try {
      const r = await ctx.api.send<RechunkResult>('POST', `/jobs/${id}/rechunk`);
      toast(`Rechunked: ${r.kept} kept, ${r.added} added, ${r.removed} removed.`);
      await load();
    } catch (err) {
      toast(`Rechunk failed: ${errorText(err)}`, 'error');
    }
  }

  async function load(): Promise<void> {
    const next: Chunk[] = [];
    await loadAll<Chunk>(ctx.api, `/jobs/${id}/chunks`, (skip, items) => items.forEach((c, k) => (next[skip + k] = c)));
    chunks = next;
    pos = Math.min(pos, Math.max(0, chunks.length - 1));
    list.invalidate();
    // Drawn now rather than on the next frame, so that "loaded" means the rows are on screen.
    list.update();
    showSummary();
    element.dataset.loaded = 'true';
  }

  const onKey = (e: KeyboardEvent) => {
    if (isTyping(e.target) || document.querySelector('dialog[open]') || e.ctrlKey || e.metaKey || e.altKey) return;
    const act: Record<string, () => void> = {
      j: () => select(pos + 1),
      ArrowDown: () => select(pos + 1),
      k: () => select(pos - 1),
      ArrowUp: () => select(pos - 1),
      a: () => void change(pos, { status: 'approved' }),
      r: () => void change(pos, { status: 'rejected' }),
      e: () => {
        editing = pos;
        list.invalidate();
      },
    };
    const fn = act[e.key];
    if (fn) {
      e.preventDefault();
      fn();
    }
  };
  document.addEventListener('keydown', onKey);

  const element = screenFrame(
    { class: 'chunks', title: 'Chunks' },
    [summary, stale, rechunk, h('span', { class: 'muted' }, 'J/K move · A approve · R reject · E edit')],
    list.element,
  );
  load().catch((err: unknown) => toast(`Could not load chunks: ${errorText(err)}`, 'error'));
  return { element, dispose: () => document.removeEventListener('keydown', onKey) };
}
