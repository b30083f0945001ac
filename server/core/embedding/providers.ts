import type { ModelManager } from '../../models/manager.js';
import { AppError } from '../errors.js';
import type { GuardedFetch } from '../net/types.js';
import type { TaskPool } from '../pool.js';
import { checkBaseUrl } from '../remote/provider-request.js';
import { HUB_PROVIDERS, isHubProvider, localModelForHubName, type HubProvider } from './hub-names.js';
import { embedOllama, embedOpenAi } from './remote-providers.js';

export const EMBEDDING_PROVIDERS = ['local', 'openai', 'ollama'] as const;
export type ProviderName = (typeof EMBEDDING_PROVIDERS)[number];
/** What a request may name: Lectern's providers and LongParser's names for running a hub model locally. */
export const EMBEDDING_PROVIDER_NAMES = [...EMBEDDING_PROVIDERS, ...HUB_PROVIDERS] as const;

const DEFAULT_BASE_URL: Record<Exclude<ProviderName, 'local'>, string> = {
  openai: 'https://api.openai.com/v1',
  ollama: 'http://127.0.0.1:11434',
};

export interface ProviderChoice {
  /** huggingface / sentence-transformers: `local`, with the catalog's ONNX export of the hub model named. */
  provider: ProviderName | HubProvider;
  model?: string;
  base_url?: string;
  /** Sent to an OpenAI-compatible server as a bearer token; never stored. */
  api_key?: string;
}

export interface EmbeddingProvider {
  readonly provider: ProviderName;
  readonly model: string;
  /** Null for the local provider; collections remember it so search can embed queries the same way. */
  readonly baseUrl: string | null;
  /** Known up front for catalogued local models; a remote model tells with its first answer. */
  readonly dimensions: number | undefined;
  /** Texts per call: a pool task for local models, one HTTP request for remote ones. */
  readonly batchSize: number;
  /** Passages: what is stored and searched. */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * Questions searched with: the same as `embed` for a model that embeds both alike, with the model's
   * query prefix for one trained with prefixes (e5's `query: `, bge's retrieval instruction).
   */
  embedQueries(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export interface ProviderDeps {
  models: ModelManager;
  pool: TaskPool;
  defaultModel: string;
  /** Every request to a remote provider goes through it. */
  net: GuardedFetch;
}

/** The provider a request (or a collection's stored settings) names; a local model must be installed. */
export async function resolveProvider(choice: ProviderChoice, deps: ProviderDeps): Promise<EmbeddingProvider> {
  if (isHubProvider(choice.provider)) {
    const model = await localModelForHubName(choice.model, deps.models, deps.defaultModel);
    return resolveProvider({ provider: 'local', model }, deps);
  }
  if (choice.provider === 'local') {
    const installed = await deps.models.require(choice.model ?? deps.defaultModel);
    const m = installed.model;
    const spec = {
      onnxPath: installed.onnxPath,
      tokenizerPath: installed.tokenizerPath,
      pooling: m.pooling,
      maxTokens: m.maxTokens,
      normalize: m.normalize ?? true,
    };
    // The prefix is part of the text, as sentence-transformers' prompts are: it counts toward max_tokens.
    const withPrefix = (prefix: string | undefined, texts: string[]) => (prefix ? texts.map((t) => prefix + t) : texts);
    async function embedLocal(texts: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
      // The signal is not handed to the pool: stopping its thread in the middle of an ONNX Runtime run
      // takes the whole process down (a native Napi::Error, SIGABRT). A batch takes well under a second;
      // an embed that is stopped stops after it.
      const { dimensions, vectors } = await deps.pool.embed({ model: spec, texts });
      if (signal?.aborted) throw signal.reason;
      return texts.map((_, i) => vectors.slice(i * dimensions, (i + 1) * dimensions));
    }
    return {
      provider: 'local',
      model: installed.model.id,
      baseUrl: null,
      dimensions: installed.model.dimensions,
      // Small enough that both pool threads get work and progress moves, large enough to sort by length.
      batchSize: 32,
      embed: (texts, signal) => embedLocal(withPrefix(m.passagePrefix, texts), signal),
      embedQueries: (texts, signal) => embedLocal(withPrefix(m.queryPrefix, texts), signal),
    };
  }
  if (!choice.model)
    throw new AppError('VALIDATION_FAILED', `provider ${choice.provider} needs a model name`, [{ field: 'model' }]);
  const endpoint = {
    baseUrl: choice.base_url ?? DEFAULT_BASE_URL[choice.provider],
    apiKey: choice.api_key,
    model: choice.model,
  };
  // A malformed base URL is a 400 now, before a job is accepted or a collection created.
  checkBaseUrl(endpoint.baseUrl);
  const call = choice.provider === 'openai' ? embedOpenAi : embedOllama;
  const embed = (texts: string[], signal?: AbortSignal) => call(deps.net, endpoint, texts, signal);
  return {
    provider: choice.provider,
    model: choice.model,
    baseUrl: endpoint.baseUrl,
    dimensions: undefined,
    batchSize: 64,
    embed,
    embedQueries: embed,
  };
}
