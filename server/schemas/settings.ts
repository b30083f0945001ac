import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { DEFAULT_EMBEDDING_MODEL } from '../models/catalog.js';
import { NET_DEFAULTS } from '../core/net/defaults.js';
import { LLM_PROVIDERS } from '../core/chat/chat-providers.js';
import { DEFAULT_LIMITS, JOB_LIMIT_DEFAULTS } from '../core/extract/limits.js';
import { DEFAULT_DATABASE_TIMEOUT_MS } from '../store/postgres/defaults.js';

/** A list of `host` or `host:port` entries, IPv6 in brackets (allowed_private_hosts, allowed_hosts). */
const HostPortList = Type.Array(Type.String({ pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[^\\s:\\[\\]/@]+)(:[0-9]{1,5})?$' }), {
  default: [],
});

/** Every setting, written once: validated at start-up whatever its source (flag, env, config file). */
export const SettingsSchema = Type.Object({
  data_dir: Type.String({ minLength: 1 }),
  host: Type.String({ default: '127.0.0.1' }),
  /**
   * A team server's database: `postgres://user:password@host:5432/lectern` (PostgreSQL 15 or newer with the
   * pgvector extension available) keeps every record, vector and full-text index there, shared by every node.
   * Empty: the data folder's own SQLite database and vector files, as on the desktop.
   */
  database_url: Type.String({ default: '' }),
  /**
   * With database_url: how long a node waits for its database to accept a connection (or to free a pooled
   * one) and to answer one statement; past it the call answers 503 DATABASE_UNAVAILABLE, as when the database
   * is down, rather than waiting on a database that stopped answering (frozen, cut off by the network), and
   * the database cancels the statement too. Migrations at start and `lectern migrate` are not bounded by it.
   */
  database_timeout_ms: Type.Integer({ minimum: 100, maximum: 600_000, default: DEFAULT_DATABASE_TIMEOUT_MS }),
  /**
   * Where uploaded originals, rendered page images and exports are kept: `s3://bucket` or
   * `s3://bucket/prefix`, an S3-compatible bucket (endpoint from AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL,
   * region from AWS_REGION, keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or the AWS SDK's other
   * sources), checked at start. Empty: the data folder's files/ and exports/, as on the desktop. Allowed
   * without database_url (a desktop's files in a bucket), though a team server is what it is for.
   */
  object_store_url: Type.String({ default: '' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 8000 }),
  /** Largest upload accepted, in bytes (413 beyond). */
  max_upload_bytes: Type.Integer({ minimum: 1, default: 200 * 1024 * 1024 }),
  /** Worker threads for extraction and chunking; 0 = one per core. */
  workers: Type.Integer({ minimum: 0, maximum: 64, default: 0 }),
  /**
   * With database_url: whether this node reads documents and embeds jobs from the team's shared queue with
   * its worker threads. false: an API node that only queues uploads and embeds for the `lectern worker` nodes
   * (its pool still embeds queries, and an embed whose request carries an api_key, and renders pages).
   * Without a database the server always reads its own uploads and embeds its own jobs.
   */
  run_tasks: Type.Boolean({ default: true }),
  /**
   * With database_url: how long a node holds a document it reads (or a job it embeds) without renewing its
   * claim (it renews every third of it). A node that dies gives its work up to another node this long after.
   */
  task_lease_ms: Type.Integer({ minimum: 200, maximum: 3_600_000, default: 30_000 }),
  /**
   * Times each worker thread reads a small built-in PDF as it starts, so that the first real documents
   * are read by optimised code (a cold thread reads them 2-3x slower); 0 turns the warm-up off.
   */
  warm_up_rounds: Type.Integer({ minimum: 0, maximum: 50, default: 6 }),
  chunk_size: Type.Integer({ minimum: 32, maximum: 8192, default: 512 }),
  chunk_overlap: Type.Integer({ minimum: 0, maximum: 1024, default: 64 }),
  // What one document may cost (server/core/extract/limits.ts): a document crossing a limit fails as a job
  // with its code (DECOMPRESSED_TOO_LARGE, IMAGE_TOO_LARGE, TOO_MANY_PAGES, TOO_MANY_ROWS, TOO_MANY_CELLS, JOB_TIMEOUT,
  // OUT_OF_MEMORY).
  /** Bytes a document may inflate to in all: PDF streams, DOCX/OOXML zip members (a PNG is bounded by its pixels). */
  max_decompressed_bytes: Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxDecompressedBytes }),
  /** Bytes any one of those compressed parts may inflate to. */
  max_decompressed_part_bytes: Type.Integer({
    minimum: 1,
    maximum: 2 ** 31 - 1,
    default: DEFAULT_LIMITS.maxDecompressedPartBytes,
  }),
  /** Pixels of an image document's page; an image inside a PDF is left out of its page beyond twice it. */
  max_image_pixels: Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxImagePixels }),
  /** Pixels of a PDF page rendered for OCR or for the review UI (a larger render is refused). */
  max_page_pixels: Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxPagePixels }),
  /** Pages of a PDF or TIFF, slides of a presentation. */
  max_pages: Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxPages }),
  /** Rows of a spreadsheet or CSV, its sheets together (past it the job fails with TOO_MANY_ROWS). */
  max_sheet_rows: Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxSheetRows }),
  /** Cells of the tables of a spreadsheet, CSV or presentation, together (TOO_MANY_CELLS). */
  max_sheet_cells: Type.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxSheetCells }),
  /** Wall time of one job's extraction, in seconds. */
  max_job_seconds: Type.Integer({ minimum: 1, maximum: 2_000_000, default: JOB_LIMIT_DEFAULTS.maxJobSeconds }),
  /** V8 heap of each worker thread, in MB: a thread over it fails its task alone (OUT_OF_MEMORY). */
  worker_heap_mb: Type.Integer({ minimum: 64, maximum: 16384, default: JOB_LIMIT_DEFAULTS.workerHeapMb }),
  /** The embedding model POST /jobs/{job_id}/embed and POST /search use when a request names none. */
  embedding_model: Type.String({ minLength: 1, default: DEFAULT_EMBEDDING_MODEL }),
  /** The GGUF chat model POST /chat uses (provider `local`) when a request names none. */
  chat_model: Type.String({ minLength: 1, default: 'smollm2-135m-instruct-q4_1' }),
  /**
   * What answers for a bot created without `llm` (the config file's `llm.provider`): local (the GGUF of
   * chat_model, on this machine), openai (any OpenAI-compatible server), ollama, or extractive (no model).
   */
  llm_provider: Type.Enum([...LLM_PROVIDERS], { default: 'local' }),
  /** The model of a remote llm_provider (the config file's `llm.model_name`); local bots use chat_model. */
  llm_model: Type.String({ default: '' }),
  /** The server of a remote llm_provider; empty: the provider's usual address. */
  llm_base_url: Type.String({ default: '' }),
  /**
   * CPU threads for local chat generation; 0 = one per core but one, at most 4, and every core (at most 4)
   * for reading the prompt while the worker pool is idle. A llama thread whose core is busy spins waiting
   * for it, so more threads than free cores makes generation many times slower.
   */
  llm_threads: Type.Integer({ minimum: 0, maximum: 64, default: 0 }),
  /**
   * What a local model reads of each retrieved chunk: `sentences`, only those bearing on the question (a
   * prompt a third as long, so the first token comes about three times sooner), or `chunks`, whole. Remote
   * providers always read whole chunks.
   */
  llm_source_text: Type.Enum(['sentences', 'chunks'], { default: 'sentences' }),
  /**
   * Hosts outbound requests (remote providers, links, web search, model downloads) may reach although they
   * are or resolve to a loopback, private, link-local or otherwise non-public address: `host:port`, or
   * `host` for any port, IPv6 in brackets (`[::1]:11434`). Compared with the URL's host as written
   * (`localhost:11434` does not allow `127.0.0.1:11434`). Environment: comma-separated.
   */
  allowed_private_hosts: HostPortList,
  /**
   * Host names the server answers to besides its own (localhost, 127.0.0.1, [::1] and the listen address):
   * `host:port`, or `host` for the listening port, IPv6 in brackets. A request naming any other Host is
   * refused with 421, so a web page whose name was rebound to this machine cannot read the API or the UI.
   * Environment: comma-separated.
   */
  allowed_hosts: HostPortList,
  /** Outbound requests: time to open a connection. */
  outbound_connect_timeout_ms: Type.Integer({ minimum: 1, default: NET_DEFAULTS.connectTimeoutMs }),
  /** Outbound requests: time from the request to the end of the answer, redirects included. */
  outbound_timeout_ms: Type.Integer({ minimum: 1, default: NET_DEFAULTS.totalTimeoutMs }),
  /** Outbound requests: largest answer read, in bytes (model downloads use their files' sizes). */
  outbound_max_bytes: Type.Integer({ minimum: 1, default: NET_DEFAULTS.maxBytes }),
  outbound_max_redirects: Type.Integer({ minimum: 0, maximum: 20, default: NET_DEFAULTS.maxRedirects }),
  /**
   * Absolute folders a bot's documents may be read from by path (POST /bots/{id}/documents/path); a path
   * resolving outside them, symlinks followed, is refused. Empty: the user's home folder.
   */
  document_roots: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  /** Files a folder added to a bot may bring at most. */
  max_folder_files: Type.Integer({ minimum: 1, maximum: 100_000, default: 500 }),
  /**
   * A folder on an HTTP server holding the model files under their own names (an organisation's mirror,
   * or a machine that has them): pulls fetch `<model_mirror_url>/<file name>` instead of the public
   * address, still checked by sha256. A host on this machine or network must be in allowed_private_hosts.
   */
  model_mirror_url: Type.String({ default: '', pattern: '^(https?://\\S+)?$' }),
  /** The MediaWiki API POST /bots/{id}/documents/query searches. */
  encyclopedia_url: Type.String({ minLength: 1, default: 'https://en.wikipedia.org/w/api.php' }),
  /** A SearxNG-compatible JSON search API for chats with web_search: true; empty: web search is off. */
  web_search_url: Type.String({ default: '' }),
  /**
   * Wrong API keys one client address may send in a minute; after that every request from it answers 429
   * RATE_LIMITED until the minute is over, without any key being compared.
   */
  auth_failures_per_minute: Type.Integer({ minimum: 1, default: 10 }),
  /**
   * Seal the words of chats (questions, answers, drafts, notes) with AES-256-GCM before they are stored.
   * The key: LECTERN_CHAT_KEY (32 bytes, base64 or hex), or chat_key_file, made when first needed.
   */
  encrypt_chats: Type.Boolean({ default: false }),
  /** The chat key's file; empty: <data_dir>/chat.key. Keep it off the data folder's disk to protect a copied folder. */
  chat_key_file: Type.String({ default: '' }),
  log_level: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('silent'),
    ],
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
    const problems = [...Value.Errors(SettingsSchema, withDefaults)].map((e) => {
      const allowed = (e.params as { allowedValues?: unknown[] } | undefined)?.allowedValues;
      return `${e.instancePath || '/'} ${e.message}${allowed ? ` (${allowed.join(', ')})` : ''}`;
    });
    throw new SettingsError(`invalid settings: ${problems.join('; ')}`);
  }
  return withDefaults as Settings;
}
