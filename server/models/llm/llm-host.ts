/**
 * The llama host: a child process that runs node-llama-cpp for the server (protocol: llm-protocol.ts).
 * It is a process, not a worker thread, because llama.cpp is native code that can abort or segfault on a
 * bad GGUF or an out-of-memory: in a worker thread that would take the whole server down with every job
 * in flight; here the server sees the child exit, fails the answers in progress with LLM_FAILED and
 * starts a new host on the next request. One model stays loaded (kept warm between requests); answers
 * run one at a time on one context sequence, which is all two cores can usefully do. The sequence keeps
 * what it has read: the next prompt is read only from where it differs (node-llama-cpp compares the
 * tokens), so a system prompt or a bot's instructions are read once, not once per question.
 */
import { availableParallelism } from 'node:os';
import {
  getLlama,
  LlamaChatSession,
  LlamaLogLevel,
  type ChatHistoryItem,
  type GbnfJsonSchema,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaGrammar,
  type LlamaModel,
} from 'node-llama-cpp';
import type { ChatMessage, GenerateRequest, HostReply, HostRequest, JsonSchema } from './llm-protocol.js';

interface Loaded {
  key: string;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
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
const llamaOnce = (): Promise<Llama> =>
  (llama ??= getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error }));

async function modelFor(req: GenerateRequest): Promise<{ loaded: Loaded; loadMs: number }> {
  const key = `${req.modelPath}|${req.contextTokens}`;
  if (loaded?.key === key) return { loaded, loadMs: 0 };
  const started = performance.now();
  const l = await llamaOnce();
  if (loaded) {
    // One model at a time: a second one would double the memory for an answer nobody is waiting for.
    await loaded.context.dispose();
    await loaded.model.dispose();
    loaded = undefined;
  }
  const model = await l.loadModel({ modelPath: req.modelPath });
  // The context may use every core; each answer then caps it through llama.maxThreads (see generate).
  const most = Math.max(availableParallelism(), req.threads, req.prefillThreads);
  l.maxThreads = most;
  const context = await model.createContext({
    contextSize: req.contextTokens,
    threads: { ideal: most, min: 1 },
    sequences: 1,
  });
  loaded = { key, model, context, sequence: context.getSequence() };
  return { loaded, loadMs: performance.now() - started };
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
  if (last?.role !== 'user') throw new Error("the last message must be the user's");
  const history: ChatHistoryItem[] = messages
    .slice(0, -1)
    .map((m) =>
      m.role === 'system'
        ? { type: 'system', text: m.content }
        : m.role === 'user'
          ? { type: 'user', text: m.content }
          : { type: 'model', response: [m.content] },
    );
  return { history, prompt: last.content };
}

async function generate(req: GenerateRequest, signal: AbortSignal): Promise<void> {
  const { loaded: m, loadMs } = await modelFor(req);
  const l = await llamaOnce();
  const session = new LlamaChatSession({ contextSequence: m.sequence, autoDisposeSequence: false });
  // The prompt is read with prefillThreads (every core while the server's pool is idle), the answer
  // written with threads: a job arriving mid-answer then slows only the prompt reading, never every token.
  l.maxThreads = req.prefillThreads;
  try {
    const { history, prompt } = historyOf(req.messages);
    session.setChatHistory(history);
    const before = m.sequence.tokenMeter.getState().usedInputTokens;
    let completionTokens = 0;
    let prompted: { total: number; read: number } | undefined;
    const grammar = req.jsonSchema ? await grammarFor(l, req.jsonSchema) : undefined;
    const result = await session.promptWithMeta(prompt, {
      maxTokens: req.maxTokens,
      temperature: req.temperature,
      grammar,
      signal,
      stopOnAbortSignal: true,
      onToken: (tokens) => {
        if (!prompted) {
          // The first token: the sequence holds the whole prompt, of which this answer read only the part
          // that differed from the last one.
          prompted = {
            total: m.sequence.nextTokenIndex,
            read: m.sequence.tokenMeter.getState().usedInputTokens - before,
          };
          l.maxThreads = req.threads;
        }
        completionTokens += tokens.length;
      },
      onTextChunk: (text) => send({ type: 'token', id: req.id, text }),
    });
    const promptTokens = prompted?.total ?? Math.max(0, m.sequence.tokenMeter.getState().usedInputTokens - before);
    send({
      type: 'done',
      id: req.id,
      text: result.responseText,
      stopReason: result.stopReason,
      promptTokens,
      cachedPromptTokens: prompted ? Math.max(0, prompted.total - prompted.read) : 0,
      completionTokens,
      loadMs,
    });
  } catch (err) {
    // A failed evaluation may leave the sequence half-read: the next answer starts from an empty one.
    await m.sequence.clearHistory().catch(() => undefined);
    throw err;
  } finally {
    // The session goes; the sequence and what it has read stay for the next answer.
    session.dispose();
    l.maxThreads = req.threads;
  }
}

const stopped = (id: number): HostReply => ({
  type: 'done',
  id,
  text: '',
  stopReason: 'abort',
  promptTokens: 0,
  cachedPromptTokens: 0,
  completionTokens: 0,
  loadMs: 0,
});

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
