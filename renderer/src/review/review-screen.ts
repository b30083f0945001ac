import type { AppContext, Screen } from '../app-context.js';
import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { errorText, toast } from '../ui/toast.js';
import { VirtualList } from '../ui/virtual-list.js';
import {
  blockEditor,
  blockRow,
  EDITING_HEIGHT,
  loadingRow,
  ROW_HEIGHT,
  SELECTED_HEIGHT,
  type EditResult,
} from './block-row.js';
import { BlockStore } from './block-store.js';
import { DeskAddress } from './desk-address.js';
import { estimatePageSize } from './page-geometry.js';
import { PageImages, pageImageWidth, ZoomImages } from './page-images.js';
import { PageSizes } from './page-sizes.js';
import { PageView } from './page-view.js';
import { ReviewJob } from './review-job.js';
import { loadReview } from './review-loading.js';
import { ReviewOrder } from './review-order.js';
import { RegionCrop } from './region-crop.js';
import { RereadRegion } from './reread-region.js';
import { ReviewCommands } from './review-commands.js';
import { commandFor, type ReviewCommand } from './review-keys.js';
import { runReviewCommand } from './review-actions.js';
import { ReviewToolbar } from './review-toolbar.js';
import { ListTools } from './list-tools.js';
import { isMissingJob, noSuchJob } from '../ui/no-such-job.js';
import { PageThumbnails } from './thumbnails.js';

/** The block being edited: the copy the reviewer opened (saves are sent at its version) and what they tried to save. */
interface Editing {
  index: number;
  note: boolean;
  base: Block;
  draft?: EditResult;
}

/**
 * The review desk: the page with its block boxes on one side, the virtualised block list on the other,
 * kept in step both ways, everything on the keyboard. The first 500 blocks draw at once; the rest load
 * behind them. The undo history, the selected block and the queue mode are kept per job in the app
 * context, so another screen of the job and back finds the desk as it was left.
 */
export function reviewScreen(ctx: AppContext, jobId: string, params: URLSearchParams): Screen {
  const desk = ctx.desks.of(jobId);
  const store = new BlockStore();
  let loaded: Promise<void> = Promise.resolve();
  const commands = new ReviewCommands(
    ctx.api,
    jobId,
    store,
    desk.undo,
    (label, done, total) => {
      toolbar.showProgress(label, done, total);
      toolbar.showCounts(store, commands.undo.peek()?.label, order.queueMode);
    },
    () => loaded,
  );
  const abort = new AbortController();
  const images = ctx.caps.pageImage ? new PageImages(ctx.api, jobId, `?size=${pageImageWidth()}`) : null;
  const address = new DeskAddress(jobId, params.get('block'));
  const order = new ReviewOrder(desk.queueMode);
  let editing: Editing | null = null;
  // The address names a block or page when reached by a link (audit, search, reload); a tab has neither.
  let wantBlock = params.get('block') ?? (params.get('page') ? null : desk.blockId);
  let wantPage = Number(params.get('page')) || 0;
  const reviewed = new ReviewJob();
  const refusal = () => reviewed.refusal();
  // Actions run one after another in the order the reviewer asked for them: "approve, then undo" typed
  // faster than a round trip must undo that approval, not whatever was recorded before it.
  let pending: Promise<void> = Promise.resolve();
  const enqueue = (action: () => Promise<void>): void => {
    pending = pending.then(action).catch((err: unknown) => toast(errorText(err), 'error'));
  };

  const current = (): number | undefined => order.current();
  const currentBlock = (): Block | undefined => {
    const i = current();
    return i === undefined ? undefined : store.at(i);
  };

  // The list side: progress, filters, search, jumps, notes in the rows, split / merge / reading order.
  const tools = new ListTools({
    api: ctx.api,
    jobId,
    store,
    undo: desk.undo,
    desk,
    signal: abort.signal,
    order: () => order.indexes(),
    pos: () => order.pos,
    select: (p) => select(p, 'center'),
    selectBlock: (id) => {
      const i = store.indexOf(id);
      if (i !== undefined && order.shows(i)) select(order.positionOf(i), 'center');
    },
    current: () => currentBlock(),
    rebuild: () => rebuildOrder(),
    redraw: () => refresh(),
    focusList: () => list.element.focus(),
    refusal,
    enqueue: (a) => enqueue(a),
    run: (c) => enqueue(() => run(c)),
    loading: (p) => {
      loaded = p;
      void p.then(
        () => toolbar.showLoading(store.loaded, store.total),
        () => undefined,
      );
    },
  });
  const list = new VirtualList({
    label: 'Blocks',
    count: () => order.length,
    heightOf: (p) =>
      editing && order.at(p) === editing.index
        ? EDITING_HEIGHT
        : (p === order.pos ? SELECTED_HEIGHT : ROW_HEIGHT) + tools.extraHeight(store.at(order.at(p) ?? -1)),
    keyOf: (p) => {
      const b = store.at(order.at(p) ?? -1);
      // An open editor is not rebuilt when a newer copy of its block arrives (a conflict): it would lose
      // what the reviewer typed and the focus.
      if (b && editing && editing.index === order.at(p)) return `${b.block_id}:editing:${editing.note ? 'n' : 'e'}`;
      return b ? `${b.block_id}:${b.version}:${p === order.pos}:${reviewed.readOnly}:${tools.key}` : `loading:${p}`;
    },
    render: (p) => {
      const i = order.at(p) ?? -1;
      const b = store.at(i);
      if (!b) return loadingRow(i);
      if (editing?.index === i) {
        const ed = editing;
        return blockEditor(b, ed.note, (r) => enqueue(() => saveEdit(ed, r)), stopEditing, ed.draft);
      }
      return tools.decorate(
        blockRow(b, p === order.pos, () => select(p), reviewed.readOnly),
        b,
        reviewed.readOnly,
      );
    },
  });
  tools.structure.attach(list.element);
  const sizes = new PageSizes(ctx.api, jobId, {
    listing: ctx.caps.pageSizes,
    signal: abort.signal,
    estimate: (page) => estimatePageSize(store.onPage(page).flatMap((i) => store.at(i)?.bbox ?? [])),
    onLoad: () => drawPage(),
  });
  const zoomImages = ctx.caps.pageImage ? new ZoomImages(ctx.api, jobId) : null;
  const pageView = new PageView(
    images,
    (page) => sizes.get(page),
    (i) => select(order.positionOf(i)),
    zoomImages,
  );
  // Page-side tools: thumbnails with each page's review status, the selected block's crop, re-read a region.
  const thumbImages = ctx.caps.pageImage ? new PageImages(ctx.api, jobId, '?size=160', 60) : null;
  const thumbs = thumbImages
    ? new PageThumbnails({
        images: thumbImages,
        pages: () => reviewed.job?.total_pages || Math.max(0, ...store.pageNumbers()),
        blocksOn: (page) => store.onPage(page).map((i) => store.at(i)),
        ready: pageView.firstImage,
        onPick: (page) => goToPage(page),
      })
    : null;
  const crop = new RegionCrop();
  pageView.onDrawn = () => crop.show(currentBlock(), pageView.drawn());
  let reread: RereadRegion | null = null;
  if (images && ctx.caps.pageReocr) {
    reread = new RereadRegion({
      api: ctx.api,
      jobId,
      pageView,
      commands,
      block: currentBlock,
      refusal,
      enqueue,
      changed: () => refresh(),
    });
    pageView.addTool(reread.element);
  }
  const toolbar = new ReviewToolbar({
    run: (c) => enqueue(() => run(c)),
    goToPage: (n) => goToPage(n),
    approveAll: () =>
      enqueue(async () => {
        const refused = await refusal();
        if (refused) return void toast(refused);
        await commands.approveAllPending();
        refresh();
      }),
    focusList: () => list.element.focus(),
  });

  function rebuildOrder(): void {
    order.rebuild(
      store.total,
      (i) => store.at(i),
      (o) => tools.filter(o),
    );
    list.invalidate();
  }

  function select(p: number, align: 'nearest' | 'center' = 'nearest'): void {
    if (p < 0 || p >= order.length) return;
    if (editing && order.at(p) !== editing.index) editing = null;
    order.pos = p;
    list.invalidate();
    list.scrollToIndex(p, align);
    drawPage();
  }

  function drawPage(): void {
    const b = currentBlock();
    const page = b?.page ?? (wantPage || 1);
    pageView.show(page, store.onPage(page), (i) => store.at(i), current());
    thumbs?.show(page);
    toolbar.showPage(page, reviewed.job?.total_pages ?? 0);
    toolbar.showCounts(store, commands.undo.peek()?.label, order.queueMode);
    if (b) {
      desk.blockId = b.block_id;
      address.remember(b.block_id);
      list.element.setAttribute('aria-activedescendant', `block-${b.block_id}`);
    }
  }

  function refresh(): void {
    list.invalidate();
    drawPage();
  }

  function goToPage(page: number): void {
    const first = store.onPage(page)[0];
    if (first === undefined)
      return void toast(`Page ${page} has no blocks${store.loaded < store.total ? ' loaded yet' : ''}.`);
    select(order.positionOf(first), 'center');
  }

  function stepPage(dir: 1 | -1): void {
    const pages = store.pageNumbers();
    const cur = currentBlock()?.page ?? 1;
    const next = dir > 0 ? pages.find((p) => p > cur) : [...pages].reverse().find((p) => p < cur);
    if (next !== undefined) goToPage(next);
  }

  function stopEditing(): void {
    editing = null;
    list.invalidate();
    list.element.focus();
  }

  async function saveEdit(ed: Editing, r: EditResult): Promise<void> {
    // Kept until the save goes through: a conflict cancelled gives the editor back with this text, and a
    // save again is sent at the version the reviewer opened, so it meets the other change again.
    ed.draft = r;
    // Once the save is sent, the reviewer's next keys are for the desk (J to the next block right after
    // Ctrl+Enter), not for an editor about to close: typed into it, they were lost. They queue behind the
    // save. A save that does not go through gives the editor its focus back.
    const after = await commands.saveEdit(ed.base, r, () => list.element.focus());
    if (after && editing === ed) stopEditing();
    else if (editing === ed)
      list.element
        .querySelector<HTMLElement>(
          ed.note ? '.block-row.editing .edit-note' : '.block-row.editing textarea, .block-row.editing input',
        )
        ?.focus();
    refresh();
  }

  async function setStatus(status: Block['status']): Promise<void> {
    const b = currentBlock();
    if (!b) return;
    const after = await commands.setStatus(b, status);
    refresh();
    if (after && status !== 'pending') select(Math.min(order.pos + 1, order.length - 1));
  }

  function startEditing(note: boolean): void {
    const b = currentBlock();
    if (!b) return;
    editing = { index: current() ?? 0, note, base: b };
    list.invalidate();
    list.scrollToIndex(order.pos);
  }

  const run = (c: ReviewCommand): Promise<void> =>
    runReviewCommand(
      {
        jobId,
        store,
        order,
        commands,
        tools,
        pageView,
        reread,
        currentBlock,
        refusal,
        select,
        stepPage,
        setStatus,
        startEditing,
        refresh,
        reorder: rebuildOrder,
        navigate: (hash) => ctx.navigate(hash),
        rememberQueueMode: (on) => (desk.queueMode = on),
      },
      c,
    );

  const onKey = (e: KeyboardEvent) => {
    if (document.querySelector('dialog[open]')) return;
    const c = commandFor(e);
    if (!c) return;
    e.preventDefault();
    enqueue(() => run(c));
  };
  document.addEventListener('keydown', onKey);

  const element = h(
    'section',
    { class: 'review', 'aria-label': 'Review' },
    toolbar.element,
    h(
      'div',
      { class: 'review-body' },
      thumbs?.element,
      pageView.element,
      h('div', { class: 'review-side' }, crop.element, tools.element, list.element),
    ),
  );

  async function open(): Promise<void> {
    store.subscribe((what) => {
      if (what === 'all') rebuildOrder();
      else list.invalidate();
    });
    loaded = loadReview({
      api: ctx.api,
      jobId,
      store,
      signal: abort.signal,
      jobRead: (j) => {
        reviewed.arrived(j);
        toolbar.showJob(j, reviewed.readOnly);
        sizes.useJob(j);
        // A document without pages (DOCX, XLSX, HTML…; a PPTX counts slides as pages) has no page images
        // to ask for, and no thumbnails to show.
        const imagePages = j.page_size === null ? 0 : j.total_pages;
        setPageCount(imagePages);
        if (thumbs) thumbs.element.hidden = !imagePages;
        list.invalidate();
        drawPage();
      },
      jobFailed: (err) => {
        sizes.useJob(null);
        setPageCount(null);
        if (isMissingJob(err)) showMissing();
        // The server still refuses what it must; the desk just cannot say so beforehand.
        reviewed.arrived(null);
      },
      blocksArrived: (first) => {
        toolbar.showLoading(store.loaded, store.total);
        const target = wantBlock
          ? store.indexOf(wantBlock)
          : wantPage
            ? store.onPage(wantPage)[0]
            : first
              ? 0
              : undefined;
        if (target !== undefined) {
          wantBlock = null;
          wantPage = 0;
          select(order.positionOf(target), 'center');
        } else drawPage();
      },
    });
    await loaded;
    toolbar.showLoading(store.loaded, store.total);
    list.element.focus();
    element.dataset.loaded = 'true';
  }
  /** Every image source of the desk learns which pages exist (null: unknown, every page is asked for). */
  function setPageCount(pages: number | null): void {
    for (const source of [images, thumbImages, zoomImages]) source?.setPageCount(pages);
  }
  /** An unknown job: say so with the way back, instead of an empty desk. */
  function showMissing(): void {
    if (element.dataset.missing) return;
    element.dataset.missing = 'true';
    element.replaceChildren(noSuchJob(jobId));
  }
  open().catch((err: unknown) => {
    if (isMissingJob(err)) return showMissing();
    if (!abort.signal.aborted) toast(`Could not open the job: ${errorText(err)}`, 'error');
  });

  return {
    element,
    dispose() {
      abort.abort();
      address.dispose();
      document.removeEventListener('keydown', onKey);
      images?.dispose();
      thumbImages?.dispose();
      zoomImages?.dispose();
    },
  };
}
