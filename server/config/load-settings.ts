import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseSettings, SettingsError, type Settings } from '../schemas/settings.js';
import { settingsOfConfigFile } from './config-file-keys.js';

export const CONFIG_FILE_NAMES = ['lectern.yaml', 'lectern.yml'];

/** The user's data folder, as each platform names it. */
export function defaultDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Lectern');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Lectern');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'lectern');
}

/** Settings named by environment variables (LECTERN_<KEY>). */
const ENV_KEYS: Record<string, keyof Settings> = {
  LECTERN_DATA_DIR: 'data_dir',
  LECTERN_HOST: 'host',
  LECTERN_DATABASE_URL: 'database_url',
  LECTERN_DATABASE_TIMEOUT_MS: 'database_timeout_ms',
  LECTERN_OBJECT_STORE_URL: 'object_store_url',
  LECTERN_PORT: 'port',
  LECTERN_MAX_UPLOAD_BYTES: 'max_upload_bytes',
  LECTERN_WORKERS: 'workers',
  LECTERN_RUN_TASKS: 'run_tasks',
  LECTERN_TASK_LEASE_MS: 'task_lease_ms',
  LECTERN_WARM_UP_ROUNDS: 'warm_up_rounds',
  LECTERN_CHUNK_SIZE: 'chunk_size',
  LECTERN_CHUNK_OVERLAP: 'chunk_overlap',
  LECTERN_MAX_DECOMPRESSED_BYTES: 'max_decompressed_bytes',
  LECTERN_MAX_DECOMPRESSED_PART_BYTES: 'max_decompressed_part_bytes',
  LECTERN_MAX_IMAGE_PIXELS: 'max_image_pixels',
  LECTERN_MAX_PAGE_PIXELS: 'max_page_pixels',
  LECTERN_MAX_PAGES: 'max_pages',
  LECTERN_MAX_SHEET_ROWS: 'max_sheet_rows',
  LECTERN_MAX_SHEET_CELLS: 'max_sheet_cells',
  LECTERN_MAX_JOB_SECONDS: 'max_job_seconds',
  LECTERN_WORKER_HEAP_MB: 'worker_heap_mb',
  LECTERN_LOG_LEVEL: 'log_level',
  LECTERN_EMBEDDING_MODEL: 'embedding_model',
  LECTERN_CHAT_MODEL: 'chat_model',
  LECTERN_LLM_PROVIDER: 'llm_provider',
  LECTERN_LLM_MODEL: 'llm_model',
  LECTERN_LLM_BASE_URL: 'llm_base_url',
  LECTERN_LLM_THREADS: 'llm_threads',
  LECTERN_LLM_SOURCE_TEXT: 'llm_source_text',
  LECTERN_ALLOWED_PRIVATE_HOSTS: 'allowed_private_hosts',
  LECTERN_ALLOWED_HOSTS: 'allowed_hosts',
  LECTERN_DOCUMENT_ROOTS: 'document_roots',
  LECTERN_ENCYCLOPEDIA_URL: 'encyclopedia_url',
  LECTERN_WEB_SEARCH_URL: 'web_search_url',
  LECTERN_MODEL_MIRROR_URL: 'model_mirror_url',
  LECTERN_OUTBOUND_CONNECT_TIMEOUT_MS: 'outbound_connect_timeout_ms',
  LECTERN_OUTBOUND_TIMEOUT_MS: 'outbound_timeout_ms',
  LECTERN_OUTBOUND_MAX_BYTES: 'outbound_max_bytes',
  LECTERN_OUTBOUND_MAX_REDIRECTS: 'outbound_max_redirects',
  LECTERN_AUTH_FAILURES_PER_MINUTE: 'auth_failures_per_minute',
  LECTERN_ENCRYPT_CHATS: 'encrypt_chats',
  LECTERN_CHAT_KEY_FILE: 'chat_key_file',
};

export interface LoadSettingsInput {
  /** Values from command-line flags; undefined entries are ignored. */
  flags?: Partial<Record<keyof Settings, unknown>>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** A config file named explicitly (-c); otherwise lectern.yaml in cwd is read when present. */
  configPath?: string;
  /** Hears what the config file holds that Lectern ignores, and why. */
  onWarning?: (message: string) => void;
}

/** Precedence: flag > environment > config file > default. */
export function loadSettings({
  flags = {},
  env,
  cwd,
  configPath,
  onWarning = () => undefined,
}: LoadSettingsInput): Settings {
  const fromFile = readConfigFile(configPath ? resolve(cwd, configPath) : findConfig(cwd), onWarning);
  const fromEnv: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(ENV_KEYS))
    if (env[name] !== undefined && env[name] !== '') fromEnv[key] = env[name];
  const fromFlags = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined));
  const merged: Record<string, unknown> = { data_dir: defaultDataDir(env), ...fromFile, ...fromEnv, ...fromFlags };
  merged.data_dir = resolve(cwd, String(merged.data_dir));
  // A list in the config file; one comma-separated string in the environment (or written so in the file).
  for (const key of ['allowed_private_hosts', 'allowed_hosts']) {
    const value = merged[key];
    if (typeof value === 'string')
      merged[key] = value
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean);
  }
  // Folders are ':'-separated in the environment, like PATH.
  if (typeof merged.document_roots === 'string')
    merged.document_roots = merged.document_roots.split(':').filter(Boolean);
  if (Array.isArray(merged.document_roots))
    merged.document_roots = merged.document_roots.map((d) => resolve(cwd, String(d)));
  return parseSettings(merged);
}

function findConfig(cwd: string): string | undefined {
  return CONFIG_FILE_NAMES.map((n) => join(cwd, n)).find((p) => existsSync(p));
}

function readConfigFile(path: string | undefined, warn: (message: string) => void): Record<string, unknown> {
  if (!path) return {};
  if (!existsSync(path)) throw new SettingsError(`config file not found: ${path}`);
  const parsed: unknown = parseYaml(readFileSync(path, 'utf8'));
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new SettingsError(`config file ${path} must hold a mapping`);
  // Lectern's flat keys, or the sections of Long-Trainer's file (server.host, llm.model_name…): both.
  return settingsOfConfigFile(parsed as Record<string, unknown>, path, warn);
}
