/**
 * The llama host: a child process that runs node-llama-cpp for the server (protocol: llm-protocol.ts).
 * It is a process, not a worker thread, because llama.cpp is native code that can abort or segfault on a
 * bad GGUF or an out-of-memory: in a worker thread that would take the whole server down with every job
 * in flight; here the server sees the child exit, fails the answers in progress with LLM_FAILED and
 * starts a new host on the next request. One model stays loaded (kept warm between requests); answers
 * run one at a time on one context sequence, which is all two cores can usefully do.
 */
import {
  getLlama, LlamaChatSession, LlamaLogLevel,
  type ChatHistoryItem, type GbnfJsonSchema, type Llama, type LlamaContext, type LlamaGrammar, type LlamaModel,
} from 'node-llama-cpp';
import type { ChatMessage, GenerateRequest, HostReply, HostRequest, JsonSchema } from './llm-protocol.js';

interface Loaded {
  key: string;
  model: LlamaModel;
  context: LlamaContext;
}

let llama: Promise<Llama> | undefined;
let loaded: Loaded | undefined;
const aborts = new Map<number, AbortController>();
let queue: Promise<void> = Promise.resolve();
/** Grammars by schema text, most recently used last: a bot asks with the same schema again and again. */
const grammars = new Map<string, Promise<LlamaGrammar>>();
const GRAMMARS_KEPT = 16;

const send = (reply: HostReply): void => void process.send?.(reply);

// The prebuilt CPU binary only: nothing is downloaded or compiled at run time.
const llamaOnce = (): Promise<Llama> => (llama ??= getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error }));

async function modelFor(req: GenerateRequest): Promise<{ context: LlamaContext; loadMs: number }> {
  const key = `${req.modelPath}|${req.contextTokens}|${req.threads}`;
  if (loaded?.key === key) return { context: loaded.context, loadMs: 0 };
  const started = performance.now();
  const l = await llamaOnce();
  if (loaded) {
    // One model at a time: a second one would double the memory for an answer nobody is waiting for.
    await loaded.context.dispose();
    await loaded.model.dispose();
    loaded = undefined;
  }
  const model = await l.loadModel({ modelPath: req.modelPath });
  const context = await model.createContext({ contextSize: req.contextTokens, threads: req.threads, sequences: 1 });
  loaded = { key, model, context };
  return { context, loadMs: performance.now() - started };
}

function grammarFor(l: Llama, schema: JsonSchema): Promise<LlamaGrammar> {
  const key = JSON.stringify(schema);
  let grammar = grammars.get(key);
  if (grammar) grammars.delete(key);
  // The server maps callers' schemas onto node-llama-cpp's subset before they are sent (grammar-schema.ts).
  grammar ??= l.createGrammarForJsonSchema<GbnfJsonSchema, Record<any, any>>(schema as GbnfJsonSchema);
  grammars.set(key, grammar);
  grammar.catch(() => grammars.delete(key));
  for (const old of grammars.keys()) if (grammars.size > GRAMMARS_KEPT) grammars.delete(old);
  return grammar;
}

/** Earlier turns become the session's history; the last user message is the prompt. */
function historyOf(messages: ChatMessage[]): { history: ChatHistoryItem[]; prompt: string } {
  const last = messages.at(-1);
  if (!last || last.role !== 'user') throw new Error('the last message must be the user\'s');
  const history: ChatHistoryItem[] = messages.slice(0, -1).map((m) =>
    m.role === 'system' ? { type: 'system', text: m.content } : m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] },
  );
  return { history, prompt: last.content };
}

async function generate(req: GenerateRequest, signal: AbortSignal): Promise<void> {
  const { context, loadMs } = await modelFor(req);
  const sequence = context.getSequence();
  const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: true });
  try {
    const { history, prompt } = historyOf(req.messages);
    session.setChatHistory(history);
    const before = sequence.tokenMeter.getState();
    let completionTokens = 0;
    const grammar = req.jsonSchema ? await grammarFor(await llamaOnce(), req.jsonSchema) : undefined;
    const result = await session.promptWithMeta(prompt, {
      maxTokens: req.maxTokens,
      temperature: req.temperature,
      grammar,
      signal,
      stopOnAbortSignal: true,
      onToken: (tokens) => void (completionTokens += tokens.length),
      onTextChunk: (text) => send({ type: 'token', id: req.id, text }),
    });
    const after = sequence.tokenMeter.getState();
    send({
      type: 'done',
      id: req.id,
      text: result.responseText,
      stopReason: result.stopReason,
      promptTokens: Math.max(0, after.usedInputTokens - before.usedInputTokens),
      completionTokens,
      loadMs,
    });
  } finally {
    // Disposing the session frees the sequence, so the next answer starts from an empty context.
    session.dispose();
  }
}

const stopped = (id: number): HostReply => ({ type: 'done', id, text: '', stopReason: 'abort', promptTokens: 0, completionTokens: 0, loadMs: 0 });

process.on('message', (msg: HostRequest) => {
  if (msg.type === 'abort') return void aborts.get(msg.id)?.abort();
  const controller = new AbortController();
  aborts.set(msg.id, controller);
  queue = queue.then(async () => {
    try {
      if (controller.signal.aborted) return send(stopped(msg.id));
      await generate(msg, controller.signal);
    } catch (err) {
      // Aborted before its first token (while llama reads the prompt), node-llama-cpp throws the abort
      // reason even with stopOnAbortSignal: that answer was stopped, not failed.
      if (controller.signal.aborted) send(stopped(msg.id));
      else send({ type: 'error', id: msg.id, code: 'LLM_FAILED', message: (err as Error).message });
    } finally {
      aborts.delete(msg.id);
    }
  });
});
// The server going away (closing the IPC channel) ends the host.
process.on('disconnect', () => process.exit(0));
