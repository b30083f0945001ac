/**
 * Reads a GGUF's metadata and loads it once with node-llama-cpp, in a child process of its own: a file
 * someone imports is untrusted native input, and llama.cpp may abort on a damaged one. Protocol: the path
 * is argv[2]; one JSON line on stdout, GgufProbeResult (gguf-probe-protocol.ts); exit code 0 either way.
 * A crash shows as a signal or a non-zero exit with no line, which the caller reports as an unreadable file.
 */
import { stat } from 'node:fs/promises';
import {
  getLlama,
  GgufFileType,
  GgufInsights,
  LlamaChatSession,
  LlamaLogLevel,
  readGgufFileInfo,
  type GgufFileInfo,
  type Llama,
} from 'node-llama-cpp';
import type { GgufFacts, GgufProbeResult } from './gguf-probe-protocol.js';

/** Enough to prove the model runs; the context Lectern opens for answers is chosen later. */
const PROBE_CONTEXT = 256;

const reply = (r: GgufProbeResult): void => void process.stdout.write(`${JSON.stringify(r)}\n`);

/** Where the tensor data ends, by the tensors' offsets and their sizes: beyond the file's end means cut short. */
async function dataEnd(info: GgufFileInfo, llama: Llama): Promise<number> {
  const offsets = (info.fullTensorInfo ?? []).map((t) => Number(t.fileOffset));
  if (offsets.length === 0) return 0;
  const insights = await GgufInsights.from(info, llama);
  return Math.min(...offsets) + insights.modelSize;
}

async function factsOf(path: string, info: GgufFileInfo, llama: Llama): Promise<Omit<GgufFacts, 'chatWrapper'>> {
  const m = info.metadata;
  const arch = m.general.architecture;
  const insights = await GgufInsights.from(info, llama);
  const fileType = m.general.file_type;
  return {
    architecture: String(arch),
    name: m.general.name ?? null,
    licence: m.general.license ?? null,
    parameters: insights.totalParameters,
    quantization:
      fileType === undefined
        ? null
        : (GgufFileType[fileType] ?? String(fileType)).replace(/^MOSTLY_/, '').toLowerCase(),
    contextLength: insights.trainContextSize ?? null,
    chatTemplate: m.tokenizer?.chat_template ?? null,
    sizeBytes: (await stat(path)).size,
  };
}

async function probe(path: string): Promise<GgufProbeResult> {
  // llama.cpp says why a load fails only in its log (node-llama-cpp throws "Failed to load model"): keep its
  // reason. The first Llama of the process owns the log, so this one is made before anything else asks for one.
  let why = '';
  const logger = (level: LlamaLogLevel, message: string): void => {
    why ||= (level === LlamaLogLevel.error && /error loading model: (.*)/.exec(message)?.[1]?.trim()) || '';
  };
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error, logger });
  let info: GgufFileInfo;
  try {
    info = await readGgufFileInfo(path, { readTensorInfo: true, logWarnings: false });
  } catch (err) {
    return {
      ok: false,
      code: 'MODEL_FILE_INVALID',
      message: `its GGUF header or metadata cannot be read (cut short or damaged): ${(err as Error).message}`,
    };
  }
  const size = (await stat(path)).size;
  // node-llama-cpp reads past the end as zeros rather than failing: the offsets tell a file cut short.
  if ((info.infoEndOffset ?? 0) > size) {
    return {
      ok: false,
      code: 'MODEL_FILE_INVALID',
      message: `the file is truncated: its metadata ends at byte ${info.infoEndOffset}, the file has ${size}`,
    };
  }
  const facts = await factsOf(path, info, llama);
  const end = await dataEnd(info, llama);
  if (end > facts.sizeBytes) {
    return {
      ok: false,
      code: 'MODEL_FILE_INVALID',
      message: `the file is truncated: its tensor data ends at byte ${end}, the file has ${facts.sizeBytes}`,
    };
  }
  if (!facts.chatTemplate) {
    return {
      ok: false,
      code: 'MODEL_NO_CHAT_TEMPLATE',
      message: 'the GGUF has no chat template (tokenizer.chat_template): it is a base model, not a chat model',
    };
  }
  try {
    const model = await llama.loadModel({ modelPath: path });
    const context = await model.createContext({
      contextSize: Math.min(PROBE_CONTEXT, facts.contextLength ?? PROBE_CONTEXT),
      sequences: 1,
    });
    // The wrapper the llama host will use for this model's answers: node-llama-cpp picks it from the template.
    const session = new LlamaChatSession({ contextSequence: context.getSequence() });
    const chatWrapper = session.chatWrapper.wrapperName;
    session.dispose();
    await context.dispose();
    await model.dispose();
    return { ok: true, facts: { ...facts, chatWrapper } };
  } catch (err) {
    // The log arrives after the throw.
    await new Promise((r) => setTimeout(r, 200));
    return {
      ok: false,
      code: 'MODEL_FILE_INVALID',
      message: `llama.cpp could not load it: ${why || (err as Error).message}`,
    };
  }
}

// No top-level await: the desktop build may bundle this file as CommonJS.
async function main(path: string | undefined): Promise<void> {
  if (!path) return reply({ ok: false, code: 'MODEL_FILE_INVALID', message: 'no file given' });
  reply(
    await probe(path).catch(
      (err: unknown): GgufProbeResult => ({ ok: false, code: 'MODEL_FILE_INVALID', message: (err as Error).message }),
    ),
  );
}

void main(process.argv[2]).finally(() => {
  // Forked (gguf-probe-run.ts): the IPC channel would keep this process alive once the answer is written.
  process.disconnect?.();
});
