import type { ErrorBody, ListPage } from './types.js';

/** An error answer of the API, discriminated on `code` as everywhere in Lectern. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface Connection {
  baseUrl: string;
  key: string;
}

export interface Api {
  readonly baseUrl: string;
  get<T>(path: string, signal?: AbortSignal): Promise<T>;
  /** A list answered as a JSON array (blocks, chunks, audit), with its total from the X-Total-Count header. */
  getPage<T>(path: string, signal?: AbortSignal): Promise<ListPage<T>>;
  send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** A binary answer (page image, export zip) with its headers. */
  fetchBlob(path: string, signal?: AbortSignal): Promise<{ blob: Blob; headers: Headers }>;
  /** The raw response, for streamed answers (Server-Sent Events). */
  stream(path: string, body: unknown, signal?: AbortSignal): Promise<Response>;
  upload<T>(file: Blob, name: string): Promise<T>;
  /** A multipart POST (a bot's document, a vision question with its images). */
  sendForm<T>(path: string, form: FormData, signal?: AbortSignal): Promise<T>;
  setReviewer(name: string): void;
}

async function failure(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as ErrorBody | null;
  if (body?.error) return new ApiError(res.status, body.error.code, body.error.message, body.error.details);
  return new ApiError(res.status, `HTTP_${res.status}`, `the server answered ${res.status} ${res.statusText}`);
}

/**
 * The typed client every screen uses: key and reviewer headers, JSON in and out, coded errors.
 * `onUnauthorized` runs on a 401 (the server restarted with another key, say) so the page can ask again.
 */
export function createApi(conn: Connection, opts: { reviewer?: string; onUnauthorized?: () => void } = {}): Api {
  let reviewerName = opts.reviewer ?? '';
  const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
    'x-api-key': conn.key,
    ...(reviewerName ? { 'x-reviewer': reviewerName } : {}),
    ...extra,
  });
  const call = async (method: string, path: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(conn.baseUrl + path, {
      method,
      ...init,
      headers: headers(init.headers as Record<string, string> | undefined),
    });
    if (!res.ok) {
      if (res.status === 401) opts.onUnauthorized?.();
      throw await failure(res);
    }
    return res;
  };
  return {
    baseUrl: conn.baseUrl,
    async get<T>(path: string, signal?: AbortSignal) {
      return (await (await call('GET', path, { signal })).json()) as T;
    },
    async getPage<T>(path: string, signal?: AbortSignal) {
      const res = await call('GET', path, { signal });
      const items = (await res.json()) as T[];
      const query = new URL(path, 'http://list').searchParams;
      const total = Number(res.headers.get('x-total-count') ?? items.length);
      return { items, total, skip: Number(query.get('skip') ?? 0), limit: Number(query.get('limit') ?? items.length) };
    },
    async send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) {
      const res = await call(
        method,
        path,
        body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
      );
      return (res.status === 204 ? undefined : await res.json()) as T;
    },
    async fetchBlob(path: string, signal?: AbortSignal) {
      const res = await call('GET', path, { signal });
      return { blob: await res.blob(), headers: res.headers };
    },
    stream(path: string, body: unknown, signal?: AbortSignal) {
      return call('POST', path, {
        body: JSON.stringify(body),
        signal,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json' },
      });
    },
    async upload<T>(file: Blob, name: string) {
      const form = new FormData();
      form.append('file', file, name);
      return (await (await call('POST', '/jobs', { body: form })).json()) as T;
    },
    async sendForm<T>(path: string, form: FormData, signal?: AbortSignal) {
      return (await (await call('POST', path, { body: form, signal })).json()) as T;
    },
    setReviewer(name: string) {
      reviewerName = name.trim().slice(0, 200);
    },
  };
}
