import type { Api } from '../api/client.js';

/** Page images as wide as half the window in device pixels, in steps of 400 so the server's cache is reused. */
export function pageImageWidth(): number {
  return Math.min(2400, Math.max(800, Math.ceil((window.innerWidth * window.devicePixelRatio) / 2 / 400) * 400));
}

/**
 * Page images as object URLs, fetched with the API key (an <img src> cannot send the header), loaded only
 * for the page on screen and the next one, and at most `keep` kept: a 500-page job must not hold 500
 * decoded images.
 */
export class PageImages {
  private cache = new Map<number, Promise<string | null>>();
  private knowPages: (n: number) => void = () => undefined;
  /** The job's page count once read: a page past it is never asked for (a one-page job has no page 2). */
  private readonly pages = new Promise<number>((resolve) => (this.knowPages = resolve));

  constructor(
    private readonly api: Api,
    private readonly jobId: string,
    private readonly query: string,
    private readonly keep = 8,
  ) {}

  get(page: number): Promise<string | null> {
    const have = this.cache.get(page);
    if (have) {
      // Most recently used last, so eviction drops the page seen longest ago.
      this.cache.delete(page);
      this.cache.set(page, have);
      return have;
    }
    // Page 1 of a job with blocks exists: it is not held back until the job's page count is known.
    const loading = (page === 1 ? Promise.resolve(1) : this.pages)
      .then((pages) =>
        page < 1 || page > pages
          ? null
          : this.api.fetchBlob(`/jobs/${encodeURIComponent(this.jobId)}/pages/${page}/image${this.query}`),
      )
      .then((got) => (got ? URL.createObjectURL(got.blob) : null))
      .catch(() => null);
    this.cache.set(page, loading);
    this.evict();
    return loading;
  }

  /** The job's page count; null when the job could not be read (every page is then asked for). */
  setPageCount(pages: number | null): void {
    this.knowPages(pages ?? Number.POSITIVE_INFINITY);
  }

  private evict(): void {
    while (this.cache.size > this.keep) {
      const [oldest, url] = this.cache.entries().next().value as [number, Promise<string | null>];
      this.cache.delete(oldest);
      void url.then((u) => u && URL.revokeObjectURL(u));
    }
  }

  dispose(): void {
    for (const url of this.cache.values()) void url.then((u) => u && URL.revokeObjectURL(u));
    this.cache.clear();
  }
}

/** The widest page image asked for when zoomed: sharp at 300% on a 1,400 px window, ~1 MB a page. */
const ZOOM_MAX_WIDTH = 3200;

/** The width to ask for at `zoom` when the page's ordinary image is `base` pixels wide; null when it is enough. */
export function zoomImageWidth(base: number, zoom: number): number | null {
  if (zoom <= 1 || !base) return null;
  const want = Math.min(ZOOM_MAX_WIDTH, Math.ceil((base * zoom) / 400) * 400);
  return want > base ? want : null;
}

/**
 * Larger renderings of the page on screen for a zoomed view, one PageImages per width (steps of 400, so
 * the server's cache is reused), each keeping only two pages: zooming must not hold large images of
 * every page seen.
 */
export class ZoomImages {
  private readonly byWidth = new Map<number, PageImages>();
  private pages: number | null | undefined;

  constructor(
    private readonly api: Api,
    private readonly jobId: string,
  ) {}

  setPageCount(pages: number | null): void {
    this.pages = pages;
    for (const p of this.byWidth.values()) p.setPageCount(pages);
  }

  get(page: number, width: number): Promise<string | null> {
    let images = this.byWidth.get(width);
    if (!images) {
      images = new PageImages(this.api, this.jobId, `?size=${width}`, 2);
      if (this.pages !== undefined) images.setPageCount(this.pages);
      this.byWidth.set(width, images);
    }
    return images.get(page);
  }

  dispose(): void {
    for (const p of this.byWidth.values()) p.dispose();
    this.byWidth.clear();
  }
}
