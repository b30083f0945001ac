import { err, note } from './term.js';

/**
 * How a command fails: one line on stderr, `lectern <command>: <what happened> (hint: <what to try>)`, and
 * exit status 1, or 2 when the command line or the settings were wrong (as git and gh do).
 */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Codes that mean the command line, a flag's value or the settings were wrong. */
const USAGE_CODES = new Set(['USAGE', 'INVALID_SETTINGS', 'VALIDATION_FAILED', 'INVALID_VALUE']);

const modelHint = (id: string) => `lectern models pull ${id}, or offline: lectern models import ${id} FILE`;

/** What to try next, by error code: the server's codes and the CLI's own. */
const HINTS: Record<string, (details: Record<string, unknown>) => string> = {
  BOT_NOT_FOUND: () => '`lectern bot list` shows every bot',
  CHAT_NOT_FOUND: () => 'leave out --chat-id to start a new chat',
  JOB_NOT_FOUND: () => 'the document was deleted meanwhile; add it again',
  MODEL_NOT_INSTALLED: (d) =>
    typeof d.id === 'string' ? modelHint(d.id) : '`lectern models list` shows what is installed',
  MODEL_NOT_FOUND: () => '`lectern models list` shows the models Lectern knows',
  MODEL_EXISTS: () => '`lectern models list` shows the names taken; import under another name',
  MODEL_FILE_INVALID: (d) =>
    typeof d.file === 'string'
      ? "import the model's folder as it was published (check the file named against where it came from)"
      : 'import the whole .gguf file as it was downloaded (check its size or checksum against where it came from)',
  MODEL_FILES_MISSING: () =>
    'a sentence-transformers folder has them; or state what a file would with --pooling, --normalize, --dimensions',
  MODEL_UNSUPPORTED: () =>
    'Lectern runs ONNX encoders with a WordPiece, Unigram or BPE tokenizer.json (BERT, MiniLM, bge, e5, XLM-R, RoBERTa) and mean, CLS or last-token pooling',
  MODEL_NOT_RUNNABLE: () => '`lectern models list` marks the models this machine can run',
  MODEL_IMPORTED: (d) =>
    typeof d.id === 'string' ? `import a new file with lectern models import ${d.id} FILE` : 'import a new file',
  MODEL_NO_CHAT_TEMPLATE: () => 'a base model cannot hold a chat: import the instruct (chat) version of the model',
  PATH_NOT_ALLOWED: () => 'add its folder to document_roots in lectern.yaml (or LECTERN_DOCUMENT_ROOTS)',
  FILE_NOT_FOUND: () => 'check the path; a relative path is read from the current folder',
  UNSUPPORTED_MEDIA_TYPE: () => 'Lectern reads PDF, DOCX, HTML, Markdown, text and image files',
  FILE_TOO_LARGE: () => 'raise max_upload_bytes in lectern.yaml',
  URL_INVALID: () => 'give an http:// or https:// address without a user name or password',
  URL_NOT_ALLOWED: () =>
    'an address of this machine or its network must be listed in allowed_private_hosts (lectern.yaml)',
  LINK_FETCH_FAILED: () =>
    'check that the address opens in a browser; a host on this machine or network must be in allowed_private_hosts',
  FETCH_FAILED: () => 'check the address and the network',
  LLM_PROVIDER_FAILED: () => "check that the bot's model server is running and reachable",
  WEB_SEARCH_UNAVAILABLE: () => 'set web_search_url in lectern.yaml',
  UNAUTHORIZED: () => 'set SERVICE_API_KEY to the key the server was started with',
  FORBIDDEN: () => 'use a key with a role that allows this (lectern keys list)',
  INVALID_SETTINGS: () => 'check the -c file, --data-dir and the LECTERN_* environment variables',
  DATA_DIR_LOCKED: () => 'wait for it to finish, or run `lectern serve` so commands share the data folder',
  SERVER_UNREACHABLE: (d) => `is it still running? If not, remove ${String(d.lock ?? 'the lock file')} and try again`,
  SERVER_KEY_UNKNOWN: () => 'set SERVICE_API_KEY to the key that server was started with',
  CONFIG_EXISTS: () => 'add --force to overwrite it, or choose another path with --output',
  INTERNAL: () => 'the server log says more',
};

function codeOf(e: unknown): { code: string; message: string; hint?: string; details: Record<string, unknown> } {
  const x = (e ?? {}) as { code?: unknown; message?: unknown; hint?: unknown; details?: unknown };
  const details =
    x.details && typeof x.details === 'object' && !Array.isArray(x.details)
      ? (x.details as Record<string, unknown>)
      : {};
  return {
    code: typeof x.code === 'string' ? x.code : 'INTERNAL',
    message: typeof x.message === 'string' && x.message ? x.message : String(e),
    hint: typeof x.hint === 'string' ? x.hint : undefined,
    details,
  };
}

/** Prints the failure as one line and returns the exit status it calls for. */
export function report(command: string, e: unknown): number {
  const { code, message, hint, details } = codeOf(e);
  if (code === 'CANCELLED') {
    note(err.dim(message));
    return 130;
  }
  const why = hint ?? HINTS[code]?.(details);
  const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
  note(`${err.red(`lectern ${command}:`)} ${oneLine}${why ? err.dim(` (hint: ${why})`) : ''}`);
  return USAGE_CODES.has(code) ? 2 : 1;
}

/**
 * Runs a command's action: its failure is reported in one line and sets the exit status; a success leaves
 * it 0 (or what the action set, e.g. 1 when some documents failed).
 */
export function action<A extends unknown[]>(
  command: string,
  run: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (e) {
      process.exitCode = report(command, e);
    }
  };
}

export const usage = (message: string, hint?: string): CliError => new CliError('USAGE', message, hint);
