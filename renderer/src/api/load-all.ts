import type { Api } from './client.js';
import type { ListPage } from './types.js';

/** The largest page the API gives (spec: limit max 500). */
export const MAX_PAGE = 500;

/**
 * Loads every item of a paginated list: a small first page (what a screen needs to draw, answered fastest),
 * then the rest in pages of 500, a few requests at a time, each handed to `onPage` as it arrives. A
 * 10,000-block job is 21 requests; keeping four in flight overlaps the server's work with the transfer
 * without crowding out the user's own requests.
 */
export async function loadAll<T>(
  api: Api,
  path: string,
  onPage: (skip: number, items: T[], total: number) => void,
  opts: { signal?: AbortSignal; concurrency?: number; firstPage?: number; afterFirst?: () => Promise<void> } = {},
): Promise<number> {
  const sep = path.includes('?') ? '&' : '?';
  const at = (skip: number, limit = MAX_PAGE): Promise<ListPage<T>> =>
    api.getPage<T>(`${path}${sep}skip=${skip}&limit=${limit}`, opts.signal);
  const firstPage = Math.min(opts.firstPage ?? MAX_PAGE, MAX_PAGE);
  const first = await at(0, firstPage);
  onPage(0, first.items, first.total);
  // Let the caller paint what it has before the rest of the answers compete for the main thread.
  await opts.afterFirst?.();
  const skips: number[] = [];
  for (let skip = firstPage; skip < first.total; skip += MAX_PAGE) skips.push(skip);
  const worker = async () => {
    for (let skip = skips.shift(); skip !== undefined; skip = skips.shift()) {
      if (opts.signal?.aborted) return;
      const page = await at(skip);
      onPage(skip, page.items, first.total);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 4, skips.length) }, worker));
  return first.total;
}
