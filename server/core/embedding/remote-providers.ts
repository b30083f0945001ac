import { AppError } from '../errors.js';
import type { GuardedFetch } from '../net/types.js';
import { postToProvider } from '../remote/provider-request.js';
import { l2Normalize } from './pooling.js';

export interface RemoteEndpoint {
  baseUrl: string;
  apiKey?: string;
  model: string;
}

const fail = (what: string, details?: unknown): AppError => new AppError('EMBEDDING_PROVIDER_FAILED', what, details);

async function postJson(
  net: GuardedFetch,
  url: string,
  body: unknown,
  apiKey: string | undefined,
  signal?: AbortSignal,
): Promise<unknown> {
  const res = await postToProvider(net, 'EMBEDDING_PROVIDER_FAILED', url, body, apiKey, signal);
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (signal?.aborted) throw err;
    throw fail(`reading the answer of ${url} failed: ${(err as Error).message}`, { url });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw fail(`${url} did not answer JSON`, { url });
  }
}

function toVectors(rows: unknown, n: number, url: string): Float32Array[] {
  if (!Array.isArray(rows) || rows.length !== n)
    throw fail(`${url} returned ${Array.isArray(rows) ? rows.length : 'no'} embeddings for ${n} inputs`, { url });
  const dim = (rows[0] as unknown[] | undefined)?.length ?? 0;
  return rows.map((r, i) => {
    if (!Array.isArray(r) || r.length !== dim || dim === 0 || !r.every((x) => typeof x === 'number')) {
      throw fail(`${url}: embedding ${i} is not a ${dim}-number array`, { url });
    }
    // Cosine indexes do not need unit vectors, but keeping every provider's output unit-length keeps scores comparable.
    return l2Normalize(Float32Array.from(r as number[]));
  });
}

/**
 * OpenAI-compatible POST /v1/embeddings (OpenAI, LM Studio, vLLM, llama.cpp server, LocalAI…). `baseUrl`
 * may name the API root with or without its /v1, as clients of these servers spell it both ways.
 */
export async function embedOpenAi(
  net: GuardedFetch,
  ep: RemoteEndpoint,
  texts: string[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const root = ep.baseUrl.replace(/\/+$/, '');
  const url = /\/v\d+$/.test(root) ? `${root}/embeddings` : `${root}/v1/embeddings`;
  const body = (await postJson(
    net,
    url,
    { model: ep.model, input: texts, encoding_format: 'float' },
    ep.apiKey,
    signal,
  )) as { data?: { embedding?: unknown; index?: number }[] };
  if (!Array.isArray(body?.data)) throw fail(`${url} answered without a data array`, { url });
  // The protocol gives each item its input index; order by it rather than trusting the array order.
  const ordered = [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
  return toVectors(ordered, texts.length, url);
}

/** Ollama's POST /api/embed (batch input; the older /api/embeddings takes one prompt at a time). */
export async function embedOllama(
  net: GuardedFetch,
  ep: RemoteEndpoint,
  texts: string[],
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const url = `${ep.baseUrl.replace(/\/+$/, '')}/api/embed`;
  const body = (await postJson(net, url, { model: ep.model, input: texts }, ep.apiKey, signal)) as {
    embeddings?: unknown;
  };
  return toVectors(body?.embeddings, texts.length, url);
}
