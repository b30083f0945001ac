import { miniLmEmbedder } from './embed-flow.js';
import { type ProviderServer, sendJson, startProviderServer } from './provider-request.js';

/**
 * A real embedding server on loopback, backed by the real MiniLM weights, speaking either the OpenAI
 * /v1/embeddings protocol or Ollama's /api/embed: what Lectern's remote providers talk to in the field.
 */
export async function startEmbeddingServer(
  protocol: 'openai' | 'ollama',
  opts: { apiKey?: string; model: string },
): Promise<ProviderServer> {
  const embedder = await miniLmEmbedder({ threads: 1 });
  const path = protocol === 'openai' ? '/v1/embeddings' : '/api/embed';
  return startProviderServer(
    { path, ...opts },
    async ({ body }, res) => {
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const vectors = (await embedder.embed(input)).map((v) => Array.from(v));
      if (protocol === 'openai') {
        // Items deliberately out of order: the protocol's `index` says which input each belongs to.
        const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse();
        return sendJson(res, 200, {
          object: 'list',
          data,
          model: opts.model,
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      }
      return sendJson(res, 200, { model: opts.model, embeddings: vectors, total_duration: 0 });
    },
    () => embedder.close(),
  );
}
