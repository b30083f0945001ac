import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, readJson } from './loopback-server.js';

/** A request a stand-in provider received. */
export interface ProviderRequest {
  path: string;
  authorization?: string;
  body: any;
  /** The text the model generated for it (chat servers, once they answered). */
  generated?: string;
}

/** A stand-in provider on loopback, speaking OpenAI's protocol or Ollama's. */
export interface ProviderServer {
  url: string;
  /** Every request, in the order received. */
  requests: ProviderRequest[];
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
}

/**
 * Reads a request and appends it to `requests`, then refuses it as the real servers do when it is not a POST to
 * `path` (404), lacks the bearer `apiKey` where one is set (401) or names another model (404). Returns the recorded
 * request for the caller to answer, or undefined once refused.
 */
async function admitRequest(
  req: IncomingMessage,
  res: ServerResponse,
  expected: { path: string; apiKey?: string; model: string },
  requests: ProviderRequest[],
): Promise<ProviderRequest | undefined> {
  const body = await readJson(req);
  const seen: ProviderRequest = { path: req.url ?? '', authorization: req.headers.authorization, body };
  requests.push(seen);
  if (req.method !== 'POST' || req.url !== expected.path) return void sendJson(res, 404, { error: 'not found' });
  if (expected.apiKey && req.headers.authorization !== `Bearer ${expected.apiKey}`)
    return void sendJson(res, 401, { error: { message: 'Incorrect API key provided' } });
  if (body.model !== expected.model) return void sendJson(res, 404, { error: `model "${body.model}" not found` });
  return seen;
}

/**
 * A provider on a free loopback port that records every request and refuses, as the real servers do, one to another
 * path, without the key or for another model; `answer` answers the others. `close` stops it, then `release` frees
 * the model behind it.
 */
export async function startProviderServer(
  expected: { path: string; apiKey?: string; model: string },
  answer: (seen: ProviderRequest, res: ServerResponse) => Promise<unknown>,
  release: () => Promise<void>,
): Promise<ProviderServer> {
  const requests: ProviderRequest[] = [];
  const server = await listenOnLoopback((req, res) => {
    void (async () => {
      const seen = await admitRequest(req, res, expected, requests);
      if (seen) await answer(seen, res);
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  }, release);
  return { ...server, requests };
}
