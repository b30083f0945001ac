import type { ModelManager } from '../../models/manager.js';
import type { ChatMessage } from '../../models/llm/llm-protocol.js';
import type { LlmRuntime } from '../../models/llm/llm-runtime.js';
import { AppError } from '../errors.js';
import type { GuardedFetch } from '../net/types.js';
import { checkBaseUrl } from '../remote/provider-request.js';
import type { SourceText } from './prompt.js';
import { streamOllamaChat, streamOpenAiChat, type StreamOptions, type StreamResult } from './remote-chat.js';

/** LongParser's hosted providers: each speaks the OpenAI chat protocol at a known address. */
const OPENAI_PROTOCOL_PROVIDERS = ['openrouter', 'groq', 'gemini'] as const;
export const LLM_PROVIDERS = ['local', 'openai', 'ollama', 'extractive', ...OPENAI_PROTOCOL_PROVIDERS] as const;
export type LlmProviderName = (typeof LLM_PROVIDERS)[number];
type RemoteProvider = Exclude<LlmProviderName, 'local' | 'extractive'>;

/** Each remote provider's known address (LongParser fixes OpenRouter's in llm_chain.py; Groq's SDK adds /openai/v1). */
export const DEFAULT_BASE_URL: Record<RemoteProvider, string> = {
  openai: 'https://api.openai.com/v1',
  ollama: 'http://127.0.0.1:11434',
  openrouter: 'https://openrouter.ai/api/v1',
  groq: 'https://api.groq.com/openai/v1',
  // Gemini's OpenAI-compatible endpoint (LongParser reaches Gemini through its own SDK instead).
  gemini: 'https://generativelanguage.googleapis.com/v1beta/openai',
};

/** LongParser's default model per hosted provider (server/chat/llm_chain.py), used when llm_model is left out. */
const DEFAULT_REMOTE_MODEL: Partial<Record<RemoteProvider, string>> = {
  gemini: 'gemini-2.5-flash',
  groq: 'openai/gpt-oss-120b',
  openrouter: 'openai/gpt-5.3',
};

/**
 * The environment variables LongParser reads for each provider's key (docs/deployment/environment.md;
 * GOOGLE_API_KEY is what its .env.example and Gemini SDK use besides). Read once when the server starts.
 */
const PROVIDER_KEY_VARIABLES: Record<Exclude<RemoteProvider, 'ollama'>, readonly string[]> = {
  openai: ['OPENAI_API_KEY'],
  openrouter: ['OPENROUTER_API_KEY'],
  groq: ['GROQ_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
};

/**
 * Variables that move a provider's address, so a deployment behind a gateway (or a test) needs no Lectern-only
 * request field. LongParser's client libraries read the first two: the openai SDK OPENAI_BASE_URL
 * (langchain_openai OPENAI_API_BASE), the groq SDK GROQ_BASE_URL (langchain_groq GROQ_API_BASE), which names
 * Groq's root: its SDK asks `/openai/v1/chat/completions` below it. LongParser fixes OpenRouter's address and
 * reaches Gemini through Google's own SDK, so OPENROUTER_BASE_URL and GEMINI_BASE_URL are Lectern's names.
 */
const PROVIDER_BASE_URL_VARIABLES: Record<
  Exclude<RemoteProvider, 'ollama'>,
  { names: readonly string[]; below?: string }
> = {
  openai: { names: ['OPENAI_BASE_URL', 'OPENAI_API_BASE'] },
  groq: { names: ['GROQ_BASE_URL', 'GROQ_API_BASE'], below: '/openai/v1' },
  openrouter: { names: ['OPENROUTER_BASE_URL'] },
  gemini: { names: ['GEMINI_BASE_URL'] },
};

/** What the environment says about the hosted providers: their keys and, where an operator moved one, its address. */
export interface ProviderKeys {
  keys?: Partial<Record<RemoteProvider, string>>;
  baseUrls?: Partial<Record<RemoteProvider, string>>;
}

export function providerKeysFrom(env: Record<string, string | undefined>): ProviderKeys {
  const keys: NonNullable<ProviderKeys['keys']> = {};
  const baseUrls: NonNullable<ProviderKeys['baseUrls']> = {};
  const first = (names: readonly string[]) => names.map((n) => env[n]?.trim()).find(Boolean);
  for (const [provider, names] of Object.entries(PROVIDER_KEY_VARIABLES) as [
    keyof typeof PROVIDER_KEY_VARIABLES,
    readonly string[],
  ][]) {
    const value = first(names);
    if (value) keys[provider] = value;
  }
  for (const [provider, { names, below = '' }] of Object.entries(PROVIDER_BASE_URL_VARIABLES) as [
    keyof typeof PROVIDER_BASE_URL_VARIABLES,
    { names: readonly string[]; below?: string },
  ][]) {
    const value = first(names);
    if (value) baseUrls[provider] = value.replace(/\/+$/, '') + below;
  }
  return { keys, baseUrls };
}

/** Where a remote provider is asked, with which key and model: the request's choice, else the environment's, else the known one. */
export function remoteEndpoint(choice: LlmChoice & { provider: RemoteProvider }, env: ProviderKeys = {}) {
  const model = choice.model ?? DEFAULT_REMOTE_MODEL[choice.provider];
  if (!model)
    throw new AppError('VALIDATION_FAILED', `llm_provider ${choice.provider} needs llm_model`, [
      { field: 'llm_model' },
    ]);
  return {
    baseUrl: choice.base_url ?? env.baseUrls?.[choice.provider] ?? DEFAULT_BASE_URL[choice.provider],
    apiKey: choice.api_key ?? env.keys?.[choice.provider],
    model,
    // An address not from the request is the provider's own, taken as its SDK takes it.
    sdkBase: choice.base_url === undefined,
  };
}

export interface LlmChoice {
  provider: Exclude<LlmProviderName, 'extractive'>;
  model?: string;
  base_url?: string;
  /** Sent to an OpenAI-compatible server as a bearer token; never stored. */
  api_key?: string;
}

export interface GenerateResult extends StreamResult {
  /** Model load time within this answer (local provider, first answer after start only). */
  loadMs: number;
}

/** Something that writes an answer from messages, streaming its text as it comes. */
export interface ChatGenerator {
  readonly provider: LlmChoice['provider'];
  readonly model: string;
  /** What it reads of each source: a local model only the sentences bearing on the question, by default. */
  readonly sourceText: SourceText;
  /**
   * With `o.jsonSchema` the answer is JSON of that schema: the local model decodes under its grammar (pass
   * the grammar-mapped schema, bots/grammar-schema.ts), remote ones get it as their response format.
   */
  generate(messages: ChatMessage[], o: StreamOptions): Promise<GenerateResult>;
}

export interface ChatProviderDeps {
  models: ModelManager;
  llm: LlmRuntime;
  defaultModel: string;
  /** Every request to a remote provider goes through it. */
  net: GuardedFetch;
  /** Keys and moved addresses from the environment, used when a request brings neither api_key nor base_url. */
  providerKeys?: ProviderKeys;
  /** What a local model reads of each source (setting llm_source_text). */
  localSourceText?: SourceText;
}

/**
 * The generator a request names. A local model must be installed: if not, 503 MODEL_NOT_INSTALLED with
 * the commands that install it (checked before anything is retrieved or streamed).
 */
export async function resolveChatGenerator(choice: LlmChoice, deps: ChatProviderDeps): Promise<ChatGenerator> {
  if (choice.provider === 'local') {
    const installed = await deps.models.requireChat(choice.model ?? deps.defaultModel).catch((err: unknown) => {
      const e = err as { code?: string; message?: string; details?: unknown };
      if (e.code === 'MODEL_NOT_INSTALLED')
        throw new AppError('MODEL_NOT_INSTALLED', e.message ?? 'model not installed', e.details, 503);
      throw err;
    });
    return {
      provider: 'local',
      model: installed.model.id,
      sourceText: deps.localSourceText ?? 'sentences',
      generate: (messages, o) =>
        deps.llm.generate({
          modelPath: installed.ggufPath,
          contextTokens: installed.model.contextTokens,
          messages,
          ...o,
        }),
    };
  }
  const endpoint = remoteEndpoint({ ...choice, provider: choice.provider }, deps.providerKeys);
  // A malformed base URL is a 400 now, before retrieval and before a stream opens.
  checkBaseUrl(endpoint.baseUrl);
  const stream = choice.provider === 'ollama' ? streamOllamaChat : streamOpenAiChat;
  return {
    provider: choice.provider,
    model: endpoint.model,
    sourceText: 'chunks',
    generate: async (messages, o) => ({ ...(await stream(deps.net, endpoint, messages, o)), loadMs: 0 }),
  };
}
