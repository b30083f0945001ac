import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { DEFAULT_EMBEDDING_MODEL } from '../models/catalog.js';

/** Every setting, written once: validated at start-up whatever its source (flag, env, config file). */
export const SettingsSchema = Type.Object({
  data_dir: Type.String({ minLength: 1 }),
  host: Type.String({ default: '127.0.0.1' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8000 }),
  /** Largest upload accepted, in bytes (413 beyond). */
  max_upload_bytes: Type.Integer({ minimum: 1, default: 200 * 1024 * 1024 }),
  /** Worker threads for extraction and chunking; 0 = one per core. */
  workers: Type.Integer({ minimum: 0, maximum: 64, default: 0 }),
  /**
   * Times each worker thread reads a small built-in PDF as it starts, so that the first real documents
   * are read by optimised code (a cold thread reads them 2-3x slower); 0 turns the warm-up off.
   */
  warm_up_rounds: Type.Integer({ minimum: 0, maximum: 50, default: 6 }),
  chunk_size: Type.Integer({ minimum: 32, maximum: 8192, default: 512 }),
  chunk_overlap: Type.Integer({ minimum: 0, maximum: 1024, default: 64 }),
  /** The embedding model POST /jobs/{job_id}/embed and POST /search use when a request names none. */
  embedding_model: Type.String({ minLength: 1, default: DEFAULT_EMBEDDING_MODEL }),
  /** The GGUF chat model POST /chat uses (provider `local`) when a request names none. */
  chat_model: Type.String({ minLength: 1, default: 'smollm2-135m-instruct-q4_1' }),
  /**
   * CPU threads for local chat generation; 0 = one per core but one, at most 4. A llama thread whose core
   * is busy spins waiting for it, so more threads than free cores makes generation many times slower.
   */
  llm_threads: Type.Integer({ minimum: 0, maximum: 64, default: 0 }),
  log_level: Type.Union(
    [Type.Literal('fatal'), Type.Literal('error'), Type.Literal('warn'), Type.Literal('info'), Type.Literal('debug'), Type.Literal('silent')],
    { default: 'info' },
  ),
});
export type Settings = Static<typeof SettingsSchema>;

export class SettingsError extends Error {
  readonly code = 'INVALID_SETTINGS';
}

/** Applies defaults, coerces strings from env/flags and throws a readable error on bad values. */
export function parseSettings(input: Record<string, unknown>): Settings {
  const withDefaults = Value.Default(SettingsSchema, Value.Convert(SettingsSchema, structuredClone(input)));
  if (!Value.Check(SettingsSchema, withDefaults)) {
    const problems = [...Value.Errors(SettingsSchema, withDefaults)].map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new SettingsError(`invalid settings: ${problems.join('; ')}`);
  }
  return withDefaults as Settings;
}
