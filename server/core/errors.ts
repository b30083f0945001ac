/**
 * The one catalogue of coded errors. Code -> HTTP status; callers discriminate on `code`, never on
 * `instanceof`, because errors also cross worker-thread boundaries as plain objects.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  INVALID_POLICY: 400,
  FILE_REQUIRED: 400,
  UNAUTHORIZED: 401,
  /** The API key is valid but its role does not allow the route, or a scoped key asks for something unscoped. */
  FORBIDDEN: 403,
  /** Too many failed key checks from one client: wait for Retry-After seconds. */
  RATE_LIMITED: 429,
  /** Named keys (`lectern keys`): no key that is not revoked has this name / one already has it. */
  KEY_NOT_FOUND: 404,
  KEY_EXISTS: 409,
  NOT_FOUND: 404,
  /** A known path asked with a method it does not have (the Allow header lists those it has). */
  METHOD_NOT_ALLOWED: 405,
  /** The Host header names neither this machine's loopback names, the listen address nor allowed_hosts. */
  MISDIRECTED_REQUEST: 421,
  JOB_NOT_FOUND: 404,
  BLOCK_NOT_FOUND: 404,
  CHUNK_NOT_FOUND: 404,
  EMPTY_TEXT: 400,
  VERSION_CONFLICT: 409,
  INVALID_STATE: 409,
  PENDING_ITEMS: 409,
  MODEL_NOT_FOUND: 404,
  COLLECTION_NOT_FOUND: 404,
  MODEL_NOT_INSTALLED: 409,
  INDEX_MISMATCH: 409,
  /**
   * POST /collections/{name}/reindex while one runs, or an embed into a collection being reindexed (its
   * vectors would be of the old model); GET/DELETE of a reindex when the collection never had one / none runs.
   */
  REINDEX_RUNNING: 409,
  REINDEX_NOT_FOUND: 404,
  /** A reindex to the model the collection already has. */
  SAME_MODEL: 409,
  MODEL_IMPORT_FAILED: 400,
  MODEL_CHECKSUM_MISMATCH: 422,
  /** Importing your own GGUF under a new name: the name is no valid id, or a model already has it. */
  MODEL_NAME_INVALID: 400,
  MODEL_EXISTS: 409,
  /** Not a GGUF (magic bytes), cut short, or llama.cpp cannot load it; an ONNX onnxruntime cannot load or run as stated. */
  MODEL_FILE_INVALID: 422,
  /** A GGUF without tokenizer.chat_template: a base model, which cannot hold a chat. */
  MODEL_NO_CHAT_TEMPLATE: 422,
  /** An embedding model's folder without the files that say how to run it (details.missing names them). */
  MODEL_FILES_MISSING: 422,
  /** An embedding model that needs what Lectern does not run: a tokenizer.json component Lectern does not run, max pooling, a Dense module. */
  MODEL_UNSUPPORTED: 422,
  MODEL_DOWNLOAD_FAILED: 502,
  /** POST /models/{id}/pull of a model imported from files of your own: it was imported, not pulled. */
  MODEL_IMPORTED: 409,
  /** A catalog model whose tokenizer Lectern does not run yet: listed, but refused at pull and at use. */
  MODEL_NOT_RUNNABLE: 409,
  /** DELETE /models/{id}/pull when no pull of the model runs. */
  PULL_NOT_FOUND: 404,
  EMBEDDING_PROVIDER_FAILED: 502,
  EMBEDDING_FAILED: 500,
  FILE_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** An OCR language that is known (`lectern languages list`) but not installed: `lectern languages add CODE`. */
  OCR_LANGUAGE_MISSING: 409,
  /** An OCR language code Lectern does not know (details.known lists those it does). */
  OCR_LANGUAGE_UNKNOWN: 400,
  /** DELETE /ocr-languages/{code}: no model of that language was added to the data folder. */
  OCR_LANGUAGE_NOT_INSTALLED: 404,
  /**
   * Installing an OCR language (`lectern languages add`, POST /ocr-languages/{code}): the registry could not
   * give the package; its tarball does not match the integrity the registry states; the local copy (or the
   * package) holds no readable model; the language is not on the npm registry (install it from a local copy).
   */
  LANGUAGE_DOWNLOAD_FAILED: 502,
  LANGUAGE_CHECKSUM_MISMATCH: 422,
  LANGUAGE_SOURCE_INVALID: 422,
  LANGUAGE_NOT_ON_REGISTRY: 422,
  OCR_REGION_INVALID: 400,
  /** A page of a stored document the renderer could not draw (its reason in details.reason). */
  PAGE_RENDER_FAILED: 422,
  OCR_PAGE_TOO_LARGE: 400,
  PAGE_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  THREAD_NOT_FOUND: 404,
  LLM_PROVIDER_FAILED: 502,
  LLM_FAILED: 500,
  /** Outbound requests (server/core/net): a URL that is not http(s), or carries credentials. */
  URL_INVALID: 400,
  /** Outbound requests: the host is or resolves to an address of this machine or its networks. */
  URL_NOT_ALLOWED: 403,
  /** Outbound requests: unreachable, timed out, too many redirects, or the answer broke off. */
  FETCH_FAILED: 502,
  RESPONSE_TOO_LARGE: 502,
  /** Sources (server/core/sources): a link answered an empty body, or a page with no readable text. */
  EMPTY_CONTENT: 422,
  /** Schema answers (server/core/bots): a `schema` Ajv cannot compile, or over the size or depth bounds. */
  SCHEMA_INVALID: 400,
  /** Schema answers: still not valid against the schema after one retry (details: errors, raw, attempts). */
  SCHEMA_UNSATISFIED: 422,
  /** Schema answers: `stream` asked together with `schema` (a value is only known valid once whole). */
  STREAM_WITH_SCHEMA: 400,
  BOT_NOT_FOUND: 404,
  CHAT_NOT_FOUND: 404,
  /** A chat stored encrypted, read without its key (LECTERN_CHAT_KEY or chat_key_file). */
  CHAT_KEY_MISSING: 409,
  MESSAGE_NOT_FOUND: 404,
  /** A job's chat session or a bot's chat, by its conversation id (GET/PATCH/DELETE /conversations/{id}). */
  CONVERSATION_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  PATH_NOT_ALLOWED: 403,
  LINK_FETCH_FAILED: 502,
  NOT_SUPPORTED: 400,
  WEB_SEARCH_UNAVAILABLE: 409,
  /**
   * Document limits (server/core/extract/limits.ts), mostly met as a failed job's `error`: the document
   * inflates past max_decompressed_bytes or one part past max_decompressed_part_bytes; an image has more
   * pixels than max_image_pixels; a PDF or TIFF more pages than max_pages.
   */
  DECOMPRESSED_TOO_LARGE: 422,
  IMAGE_TOO_LARGE: 422,
  TOO_MANY_PAGES: 422,
  /** A spreadsheet or CSV has more rows than max_sheet_rows, or its tables more cells than max_sheet_cells. */
  TOO_MANY_ROWS: 422,
  TOO_MANY_CELLS: 422,
  /** A job's extraction ran longer than max_job_seconds. */
  JOB_TIMEOUT: 422,
  /**
   * The document cannot be read as what it is (a failed job's `error`, or an image sent with a vision
   * question): catalogued so that wherever one reaches a route it is a 422 with its code, never a 500.
   */
  PDF_INVALID: 422,
  PDF_ENCRYPTED: 422,
  DOCX_INVALID: 422,
  XLSX_INVALID: 422,
  PPTX_INVALID: 422,
  CSV_INVALID: 422,
  OCR_IMAGE_INVALID: 422,
  OCR_FAILED: 422,
  EXTRACTION_FAILED: 422,
  /**
   * The object store (object_store_url, or the data folder) failed a read or write: unreachable, a missing
   * bucket, access denied, a full disk (details: store, key, op, reason, why). A write that fails leaves nothing.
   */
  OBJECT_STORE_FAILED: 502,
  /** A stored file (an original, a page image, an export) is not in the object store. */
  OBJECT_NOT_FOUND: 404,
  /**
   * A team server's PostgreSQL cannot be reached for the moment (stopped, restarting, the network between):
   * store/postgres/unavailable.ts turns the driver's connection errors into this. Retrying later works
   * (Retry-After says when); no request is half-done by it, as each write is one statement or transaction.
   */
  DATABASE_UNAVAILABLE: 503,
  /** The worker thread ran out of its heap (worker_heap_mb), again on the retry. */
  OUT_OF_MEMORY: 500,
  /** The worker thread, or the whole server, stopped while reading the document, again on the retry. */
  WORKER_DIED: 500,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The few codes that answer another status in some operations. A model missing for embed is 409 (the
 * request can name another, installed model); for chat it is 503, as the service cannot answer at all
 * until someone installs one, and retrying the same request later will work.
 */
export const OTHER_STATUS: Partial<Record<ErrorCode, readonly number[]>> = { MODEL_NOT_INSTALLED: [503] };

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    status?: number,
  ) {
    super(message);
    this.status = status !== undefined && OTHER_STATUS[code]?.includes(status) ? status : ERROR_STATUS[code];
  }
}

/** The HTTP status of a coded error: the catalogue's, or one of the catalogued alternatives it asks for. */
export function statusOf(err: { code: ErrorCode; status?: unknown }): number {
  return typeof err.status === 'number' && OTHER_STATUS[err.code]?.includes(err.status)
    ? err.status
    : ERROR_STATUS[err.code];
}

/**
 * Any error carrying a catalogued code: an AppError, a ModelError or VectorIndexMismatchError from the
 * model and store layers, or a plain `{ code, message }` that crossed a worker boundary. Its status comes
 * from the catalogue, never from the object.
 */
export function isAppError(err: unknown): err is { code: ErrorCode; message: string; details?: unknown } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'string' &&
    Object.hasOwn(ERROR_STATUS, (err as { code: string }).code) &&
    (err as { code: string }).code !== 'INTERNAL'
  );
}

/** Code and message of any error for a job's record; worker errors arrive as plain objects with `code`. */
export function describeFailure(err: unknown): { code: string; message: string } {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(e.code) ? e.code : 'EXTRACTION_FAILED';
  const message = typeof e?.message === 'string' && e.message ? e.message : String(err);
  return { code, message };
}
