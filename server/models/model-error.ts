export type ModelErrorCode =
  | 'MODEL_NOT_FOUND'
  | 'MODEL_NOT_INSTALLED'
  | 'MODEL_CHECKSUM_MISMATCH'
  | 'MODEL_DOWNLOAD_FAILED'
  | 'MODEL_IMPORT_FAILED'
  /** Importing your own GGUF: a name that cannot be a model id, one already taken, a file that is no usable GGUF. */
  | 'MODEL_NAME_INVALID'
  | 'MODEL_EXISTS'
  | 'MODEL_FILE_INVALID'
  | 'MODEL_NO_CHAT_TEMPLATE'
  /** Importing an ONNX embedding model: its folder lacks files (details.missing), or asks for what Lectern does not run. */
  | 'MODEL_FILES_MISSING'
  | 'MODEL_UNSUPPORTED'
  /** A pull of a model imported from files, or of one whose tokenizer Lectern does not run yet. */
  | 'MODEL_IMPORTED'
  | 'MODEL_NOT_RUNNABLE';

/** Coded like the app's errors (callers read `code`); the API maps the codes to statuses. */
export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

export function notInstalled(id: string, problems: string[]): ModelError {
  return new ModelError(
    'MODEL_NOT_INSTALLED',
    `Model ${id} is not installed (${problems.join('; ')}). Download it with \`lectern models pull ${id}\`, ` +
      `or on a machine without internet copy its files over and run \`lectern models import ${id} <path>\`.`,
    { id, problems },
  );
}
