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
    const loading = this.api
      .fetchBlob(`/jobs/${encodeURIComponent(this.jobId)}/pages/${page}/image${this.query}`)
      .then(({ blob }) => URL.createObjectURL(blob))
      .catch(() => null);
    this.cache.set(page, loading);
    this.evict();
    return loading;
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
