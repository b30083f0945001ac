/**
 * The contract of the one guarded fetch every outbound request of the product goes through (links,
 * encyclopedia, web search, remote model providers). Readers and providers take a `GuardedFetch`, so a
 * test can build one over a policy that allows its loopback server, and nothing reaches the network
 * around it.
 */

/** What outbound requests may reach; one per server, from settings. */
export interface NetPolicy {
  /**
   * `host:port` (or `host` for any port) that may be reached although they resolve to a loopback,
   * private, link-local, CGNAT, multicast or metadata address (setting `allowed_private_hosts`).
   */
  allowedPrivateHosts: readonly string[];
  connectTimeoutMs: number;
  /**
   * From the call until the whole body is read, redirects included. Also the longest single wait for
   * headers or for the next body chunk, even for a request that lifts its overall limit.
   */
  totalTimeoutMs: number;
  /** Largest response body read, in bytes. */
  maxBytes: number;
  /** Redirects followed, each checked again like the first URL. */
  maxRedirects: number;
}

export interface GuardedRequest {
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Per-request overrides of the policy's limits (higher or lower; a download names its file's size). */
  maxBytes?: number;
  /** 0: no overall limit, for long downloads (a stalled one still fails, see NetPolicy.totalTimeoutMs). */
  totalTimeoutMs?: number;
  /** false: a redirect is answered as it is, not followed (requests carrying a key never follow one). */
  followRedirects?: boolean;
}

export interface GuardedResponse {
  status: number;
  /** The URL that answered, after any redirects. */
  url: string;
  headers: Headers;
  /** The body as a stream; it errors with RESPONSE_TOO_LARGE past the byte limit. */
  body: ReadableStream<Uint8Array> | null;
  /** The whole body, within the byte limit. */
  bytes(): Promise<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/**
 * Fetches `url` under the policy. Throws an error with `code`: `URL_INVALID` (400: not an http(s) URL, or
 * one with a user name or password), `URL_NOT_ALLOWED` (403: the host is, or resolves to, a refused
 * address, judged again at each redirect; thrown before anything is sent to it), `FETCH_FAILED` (502:
 * connect or total timeout, network error, too many redirects, a redirect to an unfetchable URL, `json()`
 * of a body that is not JSON) or `RESPONSE_TOO_LARGE` (502). A remote error status is returned as a
 * response, never thrown; no message quotes the remote body. An abort by `signal` rejects with the
 * signal's reason (an AbortError) as it is.
 */
export type GuardedFetch = (url: string, req?: GuardedRequest) => Promise<GuardedResponse>;
