import { fork, type ChildProcess } from 'node:child_process';
import type { Logger } from 'pino';
import { AppError } from '../../core/errors.js';
import type { ChatMessage, GenerateDone, HostReply, HostRequest, JsonSchema, StopReason } from './llm-protocol.js';

export interface LocalGenerateOptions {
  modelPath: string;
  contextTokens: number;
  messages: ChatMessage[];
  maxTokens: number;
  temperature?: number;
  /** A schema in node-llama-cpp's grammar subset: the answer is decoded under its grammar. */
  jsonSchema?: JsonSchema;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
}

export interface LocalGenerateResult {
  text: string;
  stopReason: StopReason;
  promptTokens: number;
  cachedPromptTokens: number;
  /** Threads the prompt was read with. */
  prefillThreads: number;
  completionTokens: number;
  loadMs: number;
}

export interface LlmRuntime {
  /** Whether the host process is running (it starts on the first request that needs it). */
  readonly started: boolean;
  /** The host's process id while it runs (for logs and for tests that kill it). */
  readonly pid: number | undefined;
  /** Threads that write an answer. */
  readonly threads: number;
  generate(opts: LocalGenerateOptions): Promise<LocalGenerateResult>;
  close(): Promise<void>;
}

interface Pending {
  resolve(r: Omit<LocalGenerateResult, 'prefillThreads'>): void;
  reject(err: unknown): void;
  onToken?: (text: string) => void;
}

/**
 * The server's side of the llama host (llm-host.ts runs in a child process, see there why). The host
 * starts lazily on the first answer and stays up, so the model stays loaded between requests; if it dies
 * the answers in flight fail with LLM_FAILED and the next request starts a new one.
 */
export interface LlmRuntimeOptions {
  hostFile: string;
  /** Threads that write an answer. */
  threads: number;
  /** Threads that read the next prompt, asked as it is sent (the server's pool idle or not); `threads` without it. */
  prefillThreads?: () => number;
  log: Logger;
}

export function createLlmRuntime(opts: LlmRuntimeOptions): LlmRuntime {
  let child: ChildProcess | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  let stderrTail = '';

  function start(): ChildProcess {
    // execArgv emptied: the server may run under a loader (tsx, vitest) the built host does not need.
    const c = fork(opts.hostFile, [], {
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    c.stderr?.on('data', (d: Buffer) => {
      stderrTail = (stderrTail + d.toString()).slice(-2000);
    });
    c.on('message', (msg: HostReply) => {
      const p = pending.get(msg.id);
      if (!p) return;
      if (msg.type === 'token') return p.onToken?.(msg.text);
      pending.delete(msg.id);
      if (msg.type === 'error') p.reject(new AppError('LLM_FAILED', `local generation failed: ${msg.message}`));
      else p.resolve(resultOf(msg));
    });
    c.on('exit', (code, signal) => {
      if (child === c) child = undefined;
      if (pending.size === 0) return;
      const why = `the llama host process exited (${signal ?? `code ${code}`}); ${stderrTail.trim().split('\n').at(-1) ?? ''}`;
      opts.log.error({ code, signal, stderr: stderrTail }, 'llama host exited with answers in progress');
      for (const p of pending.values()) p.reject(new AppError('LLM_FAILED', why));
      pending.clear();
    });
    opts.log.info({ threads: opts.threads }, 'llama host started');
    return c;
  }

  const post = (c: ChildProcess, msg: HostRequest) => {
    if (c.connected) c.send(msg);
  };

  return {
    get started() {
      return child !== undefined;
    },
    get pid() {
      return child?.pid;
    },
    threads: opts.threads,
    generate(g) {
      child ??= start();
      const c = child;
      const id = nextId++;
      const prefillThreads = opts.prefillThreads?.() ?? opts.threads;
      return new Promise<LocalGenerateResult>((resolve, reject) => {
        const onAbort = () => post(c, { type: 'abort', id });
        const settle = () => g.signal?.removeEventListener('abort', onAbort);
        pending.set(id, {
          resolve: (r) => (settle(), resolve({ ...r, prefillThreads })),
          reject: (e) => (settle(), reject(e)),
          onToken: g.onToken,
        });
        post(c, {
          type: 'generate',
          id,
          modelPath: g.modelPath,
          contextTokens: g.contextTokens,
          threads: opts.threads,
          prefillThreads,
          messages: g.messages,
          maxTokens: g.maxTokens,
          temperature: g.temperature ?? 0,
          ...(g.jsonSchema ? { jsonSchema: g.jsonSchema } : {}),
        });
        if (g.signal?.aborted) onAbort();
        else g.signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    async close() {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((ok) => c.once('exit', ok));
      c.kill();
      await exited;
    },
  };
}

const resultOf = (d: GenerateDone): Omit<LocalGenerateResult, 'prefillThreads'> => ({
  text: d.text,
  stopReason: d.stopReason,
  promptTokens: d.promptTokens,
  cachedPromptTokens: d.cachedPromptTokens,
  completionTokens: d.completionTokens,
  loadMs: d.loadMs,
});
