import type { Block } from '../api/types.js';
import { h } from '../ui/dom.js';
import { VirtualList } from '../ui/virtual-list.js';
import type { PageImages } from './page-images.js';
import { isFlagged } from './queue-order.js';

/** Height of one thumbnail row: a small page, its status bar and its label. */
const THUMB_HEIGHT = 150;

/** How a page's blocks stand: counts by status, and flagged blocks still pending. */
export interface PageTally {
  pending: number;
  approved: number;
  edited: number;
  rejected: number;
  flagged: number;
  blocks: number;
}

export function tallyPage(blocks: Iterable<Block | undefined>): PageTally {
  const t: PageTally = { pending: 0, approved: 0, edited: 0, rejected: 0, flagged: 0, blocks: 0 };
  for (const b of blocks) {
    if (!b) continue;
    t.blocks += 1;
    t[b.status] += 1;
    if (b.status === 'pending' && isFlagged(b)) t.flagged += 1;
  }
  return t;
}

function describe(page: number, t: PageTally): string {
  if (!t.blocks) return `Page ${page}: no blocks`;
  const parts = [`${t.pending} pending`, `${t.approved} approved`, `${t.edited} edited`, `${t.rejected} rejected`];
  return `Page ${page}: ${parts.join(', ')}${t.flagged ? `, ${t.flagged} flagged` : ''}`;
}

export interface ThumbnailOptions {
  /** Small page images (their own cache, apart from the large page's). */
  images: PageImages;
  /** Pages of the document. */
  pages: () => number;
  /** The blocks of a page, as the store has them now. */
  blocksOn: (page: number) => Array<Block | undefined>;
  /** Images wait for this: the page on screen is asked for first, so opening a long document stays fast. */
  ready: Promise<void>;
  onPick: (page: number) => void;
}

/**
 * The strip of page thumbnails beside the page: each a small image of the page with a bar coloured by how
 * its blocks stand (approved, edited, rejected, pending) and what is left or flagged. Only the thumbnails
 * in view (and a few around) are built, and only theirs are fetched: a 234-page document asks for a dozen.
 */
export class PageThumbnails {
  readonly element: HTMLElement;
  private readonly list: VirtualList;
  private current = 0;
  /** The thumbnail images asked for so far, in turn. */
  private fetching: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ThumbnailOptions) {
    this.list = new VirtualList({
      label: 'Pages',
      count: () => opts.pages(),
      heightOf: () => THUMB_HEIGHT,
      overscan: 2,
      keyOf: (i) => {
        const t = tallyPage(opts.blocksOn(i + 1));
        return `${i + 1}:${t.blocks}:${t.pending}:${t.approved}:${t.edited}:${t.rejected}:${t.flagged}:${i + 1 === this.current}`;
      },
      render: (i) => this.render(i + 1),
    });
    this.element = this.list.element;
    // Not a .vlist: that class names the block list, where the desk's keys and its tests look.
    this.element.classList.replace('vlist', 'thumbs');
    // Clicking a thumbnail must leave the keys with the block list, where j, k, a and r act.
    this.element.tabIndex = -1;
  }

  /** Marks `page` as the one on screen and scrolls it into the strip; statuses are read again. */
  show(page: number): void {
    const moved = page !== this.current;
    this.current = page;
    this.list.invalidate();
    if (moved && page >= 1 && page <= this.opts.pages()) this.list.scrollToIndex(page - 1);
  }

  private render(page: number): HTMLElement {
    const t = tallyPage(this.opts.blocksOn(page));
    const img = h('img', { alt: '', decoding: 'async', draggable: 'false' });
    const seg = (cls: keyof PageTally) => (t[cls] ? h('span', { class: cls }) : null);
    const bar = h(
      'div',
      { class: 'thumb-bar', 'aria-hidden': 'true' },
      seg('approved'),
      seg('edited'),
      seg('rejected'),
      seg('pending'),
    );
    for (const el of Array.from(bar.children) as HTMLElement[])
      el.style.width = `${(t[el.className as keyof PageTally] / t.blocks) * 100}%`;
    const left = t.pending ? `${t.pending} left` : t.blocks ? '✓ done' : '—';
    const row = h(
      'div',
      {
        class: `thumb${page === this.current ? ' current' : ''}`,
        role: 'option',
        'aria-selected': String(page === this.current),
        'aria-label': describe(page, t),
        title: describe(page, t),
        'data-page': page,
        'data-pending': t.pending,
        'data-approved': t.approved,
        'data-edited': t.edited,
        'data-rejected': t.rejected,
        'data-flagged': t.flagged,
        onclick: () => this.opts.onPick(page),
      },
      h('div', { class: 'thumb-image' }, img),
      bar,
      h(
        'div',
        { class: 'thumb-label' },
        h('strong', {}, String(page)),
        ` · ${left}`,
        t.flagged ? h('span', { class: 'flag', title: 'Flagged, still pending' }, ` ⚑${t.flagged}`) : null,
      ),
    );
    this.fetching = this.fetching.then(() => this.fetch(row, img, page));
    return row;
  }

  /**
   * One thumbnail at a time, after the page on screen: the server renders a few pages at once, and the
   * page the reviewer looks at must not queue behind a strip of small ones. A thumbnail scrolled past
   * before its turn came is not fetched.
   */
  private async fetch(row: HTMLElement, img: HTMLImageElement, page: number): Promise<void> {
    await this.opts.ready;
    if (!row.isConnected) return;
    const url = await this.opts.images.get(page);
    if (url) img.src = url;
  }
}
