import { LLM_PROVIDERS } from '../core/chat/chat-providers.js';
import { SettingsError, SettingsSchema } from '../schemas/settings.js';

/**
 * The one place a config file's keys become settings. Lectern's own keys are flat (`chunk_size: 512`);
 * Long-Trainer's `longtrainer.yaml` (and `lectern init`'s file) nests them in sections. Keys that mean the
 * same in both (llm, embedding, chunking, server) are taken; what Lectern does differently is said once,
 * as a warning (mongo_endpoint, another vector store or embedding provider).
 */
export const VECTOR_STORES = ['usearch'] as const;
export const EMBEDDING_PROVIDERS = ['local'] as const;

const SECTIONS = ['server', 'chunking', 'llm', 'embedding', 'vector_store', 'encrypt_chats', 'mongo_endpoint'] as const;

const section = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** Whether a YAML/flag value says yes; undefined when it is neither a yes nor a no. */
export function yesNo(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  const s = String(v ?? '')
    .trim()
    .toLowerCase();
  if (['true', 'yes', 'y', 'on', '1'].includes(s)) return true;
  if (['false', 'no', 'n', 'off', '0'].includes(s)) return false;
  return undefined;
}

/** A parsed config file (a mapping) as flat settings; `warn` hears what was ignored and why. */
export function settingsOfConfigFile(
  file: Record<string, unknown>,
  path: string,
  warn: (message: string) => void,
): Record<string, unknown> {
  const {
    server,
    chunking,
    llm,
    embedding,
    vector_store: vectorStore,
    encrypt_chats: encryptChats,
    mongo_endpoint: mongo,
    ...rest
  } = file;
  const out: Record<string, unknown> = { ...section(server), ...section(chunking) };

  const l = section(llm);
  const provider = text(l.provider);
  if (provider !== undefined) {
    if (!(LLM_PROVIDERS as readonly string[]).includes(provider)) {
      throw new SettingsError(`${path}: llm.provider ${provider} is not one Lectern has (${LLM_PROVIDERS.join(', ')})`);
    }
    out.llm_provider = provider;
  }
  const model = text(l.model_name) ?? text(l.model);
  // A local model is a GGUF of the catalog (chat_model); a remote one is whatever that server calls it.
  if (model !== undefined && provider !== 'extractive')
    out[(provider ?? 'local') === 'local' ? 'chat_model' : 'llm_model'] = model;
  if (text(l.base_url)) out.llm_base_url = text(l.base_url);

  const e = section(embedding);
  const embeddingProvider = text(e.provider);
  if (embeddingProvider && !(EMBEDDING_PROVIDERS as readonly string[]).includes(embeddingProvider)) {
    warn(
      `${path}: embedding.provider ${embeddingProvider} ignored: Lectern embeds documents on this machine (provider local, embedding_model)`,
    );
  } else if (text(e.model_name) ?? text(e.model)) out.embedding_model = text(e.model_name) ?? text(e.model);

  const store = text(section(vectorStore).provider) ?? text(vectorStore);
  if (store && !(VECTOR_STORES as readonly string[]).includes(store))
    warn(`${path}: vector_store ${store} ignored: Lectern's vector store is usearch`);

  if (encryptChats !== undefined) {
    const on = yesNo(encryptChats);
    if (on === undefined)
      throw new SettingsError(`${path}: encrypt_chats: ${String(encryptChats)} is neither true nor false`);
    out.encrypt_chats = on;
  }
  if (mongo !== undefined)
    warn(`${path}: mongo_endpoint ignored: Lectern keeps its data in SQLite under the data folder (data_dir)`);

  const known = new Set<string>([...Object.keys(SettingsSchema.properties), ...SECTIONS]);
  for (const key of Object.keys(rest)) if (!known.has(key)) warn(`${path}: unknown key ${key} ignored`);
  return { ...out, ...rest };
}
