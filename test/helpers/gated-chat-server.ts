import { listenOnLoopback, readJson, type LoopbackServer } from './loopback-server.js';
import type { ProviderRequest } from './provider-request.js';

export interface GatedChatServer extends LoopbackServer {
  /** Every request, in the order received. */
  requests: ProviderRequest[];
  /** Resolves when the n-th request (1-based) has arrived. */
  arrived(n: number): Promise<void>;
  /** Lets every request waiting for an answer have it; later ones are answered at once. */
  open(): void;
}

/**
 * A server speaking OpenAI's streamed /v1/chat/completions that holds each answer until `open()`: what
 * lets a test send a second request while the first is provably still being answered. It answers with a
 * fixed sentence citing [S1], in two streamed pieces, as a hosted OpenAI-protocol provider would.
 */
export async function startGatedChatServer(
  answer = 'Lava and ash come out when it erupts [S1].',
): Promise<GatedChatServer> {
  const requests: GatedChatServer['requests'] = [];
  const waiters: { n: number; ok: () => void }[] = [];
  let release!: () => void;
  let opened = false;
  const gate = new Promise<void>((ok) => (release = ok));
  const server = await listenOnLoopback((req, res) => {
    void (async () => {
      const body = await readJson(req);
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      for (const w of waiters.filter((x) => requests.length >= x.n)) w.ok();
      // Any base address: the recorded path tells which one the request was sent to.
      if (!req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end('{}');
        return;
      }
      await gate;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const half = Math.ceil(answer.length / 2);
      for (const piece of [answer.slice(0, half), answer.slice(half)]) {
        res.write(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`,
        );
      }
      res.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 50, completion_tokens: 12 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  return {
    ...server,
    requests,
    arrived: (n) => (requests.length >= n ? Promise.resolve() : new Promise((ok) => waiters.push({ n, ok }))),
    open() {
      if (!opened) release();
      opened = true;
    },
  };
}
