import { CliError } from './fail.js';

/**
 * The CLI's one way to the data: HTTP to a Lectern server, whether `lectern serve` runs it or the command
 * started one itself on a loopback port (cli/owner.ts). Errors come back as the API's codes.
 */
export interface ApiClient {
  readonly url: string;
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown, signal?: AbortSignal): Promise<T>;
  del<T>(path: string): Promise<T>;
  /** POSTs and hands each Server-Sent Event to `onEvent` as it arrives; resolves when the stream ends. */
  stream(
    path: string,
    body: unknown,
    onEvent: (event: string, data: unknown) => void,
    signal?: AbortSignal,
  ): Promise<void>;
}

export function createClient(url: string, key: string, lockPath?: string): ApiClient {
  async function send(
    method: string,
    path: string,
    body: unknown,
    signal?: AbortSignal,
    accept = 'application/json',
  ): Promise<Response> {
    const headers: Record<string, string> = { 'x-api-key': key, accept };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new CliError(
        'SERVER_UNREACHABLE',
        `cannot reach the Lectern server at ${url}: ${(e as { cause?: { code?: string } }).cause?.code ?? String(e)}`,
        undefined,
        { lock: lockPath },
      );
    }
    if (res.ok) return res;
    const text = await res.text();
    let error: { code?: string; message?: string; details?: unknown } = {};
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
    } catch {
      // not the API's error body
    }
    throw new CliError(
      error.code ?? `HTTP_${res.status}`,
      error.message ?? `${method} ${path} answered ${res.status}`,
      undefined,
      error.details,
    );
  }
  const json = async <T>(res: Response): Promise<T> =>
    res.status === 204 ? (undefined as T) : ((await res.json()) as T);
  return {
    url,
    get: async (path) => json(await send('GET', path, undefined)),
    post: async (path, body, signal) => json(await send('POST', path, body ?? {}, signal)),
    del: async (path) => json(await send('DELETE', path, undefined)),
    async stream(path, body, onEvent, signal) {
      const res = await send('POST', path, body, signal, 'text/event-stream');
      if (!res.body) return;
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(part, { stream: true });
        for (let sep = buffered.indexOf('\n\n'); sep >= 0; sep = buffered.indexOf('\n\n')) {
          const raw = buffered.slice(0, sep);
          buffered = buffered.slice(sep + 2);
          const event = /^event: ?(.*)$/m.exec(raw)?.[1] ?? 'message';
          const data = raw
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          onEvent(event, data ? (JSON.parse(data) as unknown) : null);
        }
      }
    },
  };
}
