import type { FastifyReply, FastifyRequest } from 'fastify';

export interface Page<T> {
  items: T[];
  total: number;
  skip: number;
  limit: number;
}

/** Where each of the first, prev, next and last pages starts, for a list read from `skip`, `limit` at a time. */
function pageStarts({
  total,
  skip,
  limit,
}: Omit<Page<unknown>, 'items'>): Record<'first' | 'prev' | 'next' | 'last', number | null> {
  return {
    first: 0,
    prev: skip > 0 ? Math.max(0, skip - limit) : null,
    next: skip + limit < total ? skip + limit : null,
    last: total > 0 ? Math.floor((total - 1) / limit) * limit : 0,
  };
}

/** An RFC 8288 Link header value: the request's own URL (other query parameters kept) at each page start. */
function linkHeader(requestUrl: URL, page: Omit<Page<unknown>, 'items'>): string {
  return Object.entries(pageStarts(page))
    .filter((e): e is [string, number] => e[1] !== null)
    .map(([rel, skip]) => {
      const url = new URL(requestUrl);
      url.searchParams.set('skip', String(skip));
      url.searchParams.set('limit', String(page.limit));
      return `<${url.href}>; rel="${rel}"`;
    })
    .join(', ');
}

/**
 * Answers a page of a list as LongParser's clients read it, a bare JSON array, with the paging in
 * headers: X-Total-Count (matching items in all) and Link (first, prev, next, last), as GitHub and
 * json-server do. Returns the array for the route to send.
 */
export function sendPage<T>(req: FastifyRequest, reply: FastifyReply, page: Page<T>): T[] {
  const self = new URL(req.url, `${req.protocol}://${req.host}`);
  reply.header('x-total-count', String(page.total));
  reply.header('link', linkHeader(self, page));
  return page.items;
}
