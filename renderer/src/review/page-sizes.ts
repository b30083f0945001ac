import type { Api } from '../api/client.js';
import type { Job, ListPage, PageInfo } from '../api/types.js';
import type { PageShape, PageSize } from './page-geometry.js';

/** Pages asked for at once, around the page on screen: about 15 kB, and a 100,000-page job is never read whole. */
const WINDOW = 100;

export interface PageSizesOptions {
  /** Whether the server has GET /jobs/{id}/pages. */
  listing: boolean;
  signal: AbortSignal;
  /** The guess for a page the server reports nothing about (an older server). */
  estimate: (page: number) => PageSize | null;
  /** A size arrived: the page on screen may be drawn now. */
  onLoad: () => void;
}

/**
 * Each page's size as the server reports it, the space its block boxes are in. Nothing is drawn until the
 * job is known: a job whose pages all have one size says so itself (`page_size`), and only otherwise is
 * the pages listing read, a window at a time, when a page in it is first shown.
 */
export class PageSizes {
  private readonly known = new Map<number, PageSize | null>();
  private readonly asked = new Set<number>();
  private source: 'job' | 'listing' | 'estimate' | undefined;
  private uniform: PageSize | null = null;

  constructor(
    private readonly api: Api,
    private readonly jobId: string,
    private readonly opts: PageSizesOptions,
  ) {}

  /** The job as read (null: it could not be read); sizes are given from then on. */
  useJob(job: Job | null): void {
    if (this.source) return;
    const s = job?.page_size;
    if (s && s.pages === job?.total_pages) {
      this.uniform = { width: s.width, height: s.height };
      this.source = 'job';
    } else {
      // null: the server says the document has no page sizes (a flow format), so there is nothing to ask.
      this.source = s === null || !this.opts.listing ? 'estimate' : 'listing';
    }
    this.opts.onLoad();
  }

  /** `page`'s size; undefined while it is being asked for, null when there is none to draw on. */
  get(page: number): PageShape | null | undefined {
    if (!this.source) return undefined;
    if (this.uniform) return { size: this.uniform, reported: true };
    const reported = this.source === 'listing' ? this.lookUp(page) : null;
    if (reported === undefined) return undefined;
    if (reported) return { size: reported, reported: true };
    const guess = this.opts.estimate(page);
    return guess && { size: guess, reported: false };
  }

  private lookUp(page: number): PageSize | null | undefined {
    if (this.known.has(page)) return this.known.get(page) ?? null;
    this.load(Math.floor((page - 1) / WINDOW) * WINDOW);
    return undefined;
  }

  private load(skip: number): void {
    if (this.asked.has(skip)) return;
    this.asked.add(skip);
    const path = `/jobs/${encodeURIComponent(this.jobId)}/pages?skip=${skip}&limit=${WINDOW}`;
    const settle = (items: PageInfo[]) => {
      // Pages of the window the answer leaves out have no size to report: they fall back to the estimate.
      for (let p = skip + 1; p <= skip + WINDOW; p++) this.known.set(p, null);
      for (const it of items)
        if (it.width > 0 && it.height > 0) this.known.set(it.page, { width: it.width, height: it.height });
      this.opts.onLoad();
    };
    this.api.get<ListPage<PageInfo>>(path, this.opts.signal).then(
      (list) => settle(list.items),
      () => {
        if (!this.opts.signal.aborted) settle([]);
      },
    );
  }
}
