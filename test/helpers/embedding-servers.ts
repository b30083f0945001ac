import { createEmbedder, type Embedder } from '../../server/core/embedding/onnx-embedder.js';
import { listenOnLoopback, readJson } from './loopback-server.js';
import { ensureTestModels } from './test-models.js';

export interface ProtocolServer {
  url: string;
  /** Every request seen: path, authorization header and JSON body. */
  requests: { path: string; authorization?: string; body: any }[];
  close(): Promise<void>;
}

/**
 * A real embedding server on loopback, backed by the real MiniLM weights, speaking either the OpenAI
 * /v1/embeddings protocol or Ollama's /api/embed: what Lectern's remote providers talk to in the field.
 */
export async function startEmbeddingServer(
  protocol: 'openai' | 'ollama',
  opts: { apiKey?: string; model: string },
): Promise<ProtocolServer> {
  const { minilm } = await ensureTestModels();
  const embedder: Embedder = await createEmbedder({
    modelPath: minilm.onnx,
    tokenizerPath: minilm.tokenizer,
    pooling: 'mean',
    maxTokens: 256,
    threads: 1,
  });
  const requests: ProtocolServer['requests'] = [];
  const server = await listenOnLoopback(
    (req, res) => {
      void (async () => {
        const body = await readJson(req);
        requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
        const send = (status: number, payload: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
        const wantPath = protocol === 'openai' ? '/v1/embeddings' : '/api/embed';
        if (req.method !== 'POST' || req.url !== wantPath) return send(404, { error: 'not found' });
        if (opts.apiKey && req.headers.authorization !== `Bearer ${opts.apiKey}`)
          return send(401, { error: { message: 'Incorrect API key provided' } });
        if (body.model !== opts.model) return send(404, { error: `model "${body.model}" not found` });
        const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
        const vectors = (await embedder.embed(input)).map((v) => Array.from(v));
        if (protocol === 'openai') {
          // Items deliberately out of order: the protocol's `index` says which input each belongs to.
          const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse();
          return send(200, { object: 'list', data, model: opts.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
        }
        return send(200, { model: opts.model, embeddings: vectors, total_duration: 0 });
      })().catch((err: unknown) => res.writeHead(500).end(String(err)));
    },
    () => embedder.close(),
  );
  return { ...server, requests };
}
