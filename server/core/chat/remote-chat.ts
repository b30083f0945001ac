import type { ChatMessage, JsonSchema, StopReason } from '../../models/llm/llm-protocol.js';
import { AppError } from '../errors.js';
import type { GuardedFetch, GuardedResponse } from '../net/types.js';
import { postToProvider } from '../remote/provider-request.js';

export interface RemoteChatEndpoint {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /**
   * The base taken as the provider's SDK takes it, the chat path right below it: a hosted provider's known or
   * configured address (Gemini's ends in /openai, not /vN). Otherwise a base without /vN gets /v1 added.
   */
  sdkBase?: boolean;
}

export interface StreamOptions {
  maxTokens: number;
  temperature: number;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
  /**
   * The answer must be JSON valid against this schema: the caller's schema for a remote provider (sent as
   * its JSON-schema response format), the grammar-mapped one for the local model (decoded under it).
   */
  jsonSchema?: JsonSchema;
}

export interface StreamResult {
  text: string;
  stopReason: StopReason;
  promptTokens: number;
  /** Prompt tokens a local model kept read from its previous answer. */
  cachedPromptTokens?: number;
  /** Threads a local model read the prompt with. */
  prefillThreads?: number;
  completionTokens: number;
}

const fail = (what: string, details?: unknown): AppError => new AppError('LLM_PROVIDER_FAILED', what, details);

const open = (net: GuardedFetch, url: string, body: unknown, apiKey: string | undefined, signal?: AbortSignal) =>
  postToProvider(net, 'LLM_PROVIDER_FAILED', url, body, apiKey, signal);

/** The response body line by line; a client abort ends the lines quietly (the caller keeps what came). */
async function* lines(
  res: GuardedResponse & { body: ReadableStream<Uint8Array> },
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(part, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        yield buffered.slice(0, nl).replace(/\r$/, '');
        buffered = buffered.slice(nl + 1);
      }
    }
  } catch (err) {
    if (!signal?.aborted) throw fail(`the answer stream broke off: ${(err as Error).message}`);
    return;
  }
  if (buffered.trim()) yield buffered;
}

function parseJson(line: string, url: string): any {
  try {
    return JSON.parse(line);
  } catch {
    // Not quoted: what a server sends is not repeated to the caller (it may not be a model server at all).
    throw fail(`${url} sent a line that is not JSON`, { url });
  }
}

/**
 * OpenAI-compatible POST /v1/chat/completions with `stream: true` (OpenAI, LM Studio, vLLM, llama.cpp
 * server, LocalAI…): Server-Sent Events of `choices[0].delta.content`, ending with `data: [DONE]`.
 */
/** OpenAI's content parts for a message with images (`image_url` data URIs); plain text otherwise. */
function openAiMessage(m: ChatMessage) {
  if (!m.images?.length) return { role: m.role, content: m.content };
  return {
    role: m.role,
    content: [
      { type: 'text', text: m.content },
      ...m.images.map((i) => ({ type: 'image_url', image_url: { url: `data:${i.media_type};base64,${i.base64}` } })),
    ],
  };
}

/** Ollama takes a message's images as base64 strings beside its text. */
function ollamaMessage(m: ChatMessage) {
  return m.images?.length
    ? { role: m.role, content: m.content, images: m.images.map((i) => i.base64) }
    : { role: m.role, content: m.content };
}

/** Where an OpenAI-protocol endpoint takes chat completions. */
export function openAiChatUrl(ep: Pick<RemoteChatEndpoint, 'baseUrl' | 'sdkBase'>): string {
  const root = ep.baseUrl.replace(/\/+$/, '');
  return ep.sdkBase || /\/v\d+$/.test(root) ? `${root}/chat/completions` : `${root}/v1/chat/completions`;
}

export async function streamOpenAiChat(
  net: GuardedFetch,
  ep: RemoteChatEndpoint,
  messages: ChatMessage[],
  o: StreamOptions,
): Promise<StreamResult> {
  const url = openAiChatUrl(ep);
  const body = {
    model: ep.model,
    messages: messages.map(openAiMessage),
    max_tokens: o.maxTokens,
    temperature: o.temperature,
    stream: true,
    stream_options: { include_usage: true },
    // strict: false, as OpenAI's strict mode accepts only a subset of JSON Schema; the answer is validated after.
    ...(o.jsonSchema
      ? {
          response_format: {
            type: 'json_schema',
            json_schema: { name: 'answer', schema: o.jsonSchema, strict: false },
          },
        }
      : {}),
  };
  const res = await open(net, url, body, ep.apiKey, o.signal);
  let text = '';
  let pieces = 0;
  let finish: string | undefined;
  let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
  for await (const line of lines(res, o.signal)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') break;
    const event = parseJson(data, url) as {
      choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
      usage?: typeof usage;
      error?: { message?: string };
    };
    if (event.error) throw fail(`${url} sent an error event instead of an answer`, { url });
    usage = event.usage ?? usage;
    const choice = event.choices?.[0];
    if (choice?.finish_reason) finish = choice.finish_reason;
    const piece = choice?.delta?.content;
    if (piece) {
      text += piece;
      pieces++;
      o.onToken?.(piece);
    }
  }
  const stopReason: StopReason = o.signal?.aborted ? 'abort' : finish === 'length' ? 'maxTokens' : 'eogToken';
  // Servers that do not report usage send about one token per delta.
  return {
    text,
    stopReason,
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? pieces,
  };
}

/** Ollama's POST /api/chat, streamed as one JSON object per line until `done: true`. */
export async function streamOllamaChat(
  net: GuardedFetch,
  ep: RemoteChatEndpoint,
  messages: ChatMessage[],
  o: StreamOptions,
): Promise<StreamResult> {
  const url = `${ep.baseUrl.replace(/\/+$/, '')}/api/chat`;
  const body = {
    model: ep.model,
    messages: messages.map(ollamaMessage),
    stream: true,
    options: { num_predict: o.maxTokens, temperature: o.temperature },
    ...(o.jsonSchema ? { format: o.jsonSchema } : {}),
  };
  const res = await open(net, url, body, ep.apiKey, o.signal);
  let text = '';
  let last: { done_reason?: string; prompt_eval_count?: number; eval_count?: number } = {};
  let pieces = 0;
  for await (const line of lines(res, o.signal)) {
    if (!line.trim()) continue;
    const event = parseJson(line, url) as {
      message?: { content?: string };
      done?: boolean;
      error?: string;
    } & typeof last;
    if (event.error) throw fail(`${url} sent an error instead of an answer`, { url });
    const piece = event.message?.content;
    if (piece) {
      text += piece;
      pieces++;
      o.onToken?.(piece);
    }
    if (event.done) {
      last = event;
      break;
    }
  }
  const stopReason: StopReason = o.signal?.aborted ? 'abort' : last.done_reason === 'length' ? 'maxTokens' : 'eogToken';
  return { text, stopReason, promptTokens: last.prompt_eval_count ?? 0, completionTokens: last.eval_count ?? pieces };
}
