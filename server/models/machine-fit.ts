import { availableParallelism, freemem, totalmem } from 'node:os';
import type { KnownModel, ModelStatus } from './manager.js';

export interface MachineMemory {
  totalBytes: number;
  /** What the system could give a model now (MemAvailable on Linux), within the process's memory limit. */
  freeBytes: number;
}

/**
 * `comfortably`: the model needs at most 3/4 of the free memory, leaving room for the rest of Lectern and
 * the system. `tight`: it fits the machine but not what is free now (other programs would have to give
 * memory back, or the system swaps). `no`: more than this machine has.
 */
export type MemoryFit = 'comfortably' | 'tight' | 'no';

export function machineMemory(): MachineMemory {
  // A container's limit (cgroups) is the machine as far as this process is concerned; 0 means none.
  const limit = process.constrainedMemory?.() ?? 0;
  const total = limit > 0 ? Math.min(limit, totalmem()) : totalmem();
  return { totalBytes: total, freeBytes: Math.min(freemem(), total) };
}

export function memoryFit(needBytes: number, memory: MachineMemory): MemoryFit {
  if (needBytes <= memory.freeBytes * 0.75) return 'comfortably';
  return needBytes <= memory.totalBytes * 0.9 ? 'tight' : 'no';
}

const MIB = 1024 * 1024;

/**
 * Bytes a model takes while it runs, an estimate: a GGUF is mapped whole, plus its key/value cache for the
 * context Lectern opens and llama.cpp's compute buffers; an ONNX graph is loaded whole, plus onnxruntime's
 * activations for a batch of chunks.
 */
export function memoryNeedOf(m: KnownModel, fileBytes: number): number {
  if (m.task === 'chat') {
    const kvPerToken = 'kvBytesPerToken' in m ? m.kvBytesPerToken : 0;
    // An imported GGUF states no cache size here: a fifth of its file stands for it.
    const cache = kvPerToken > 0 ? kvPerToken * m.contextTokens : fileBytes * 0.2;
    return Math.ceil(fileBytes * 1.05 + cache + 200 * MIB);
  }
  return Math.ceil(fileBytes * 1.5 + 150 * MIB);
}

/**
 * Without a GPU a chat model's every token reads the whole file through the cores: about a GiB of weights
 * per core still answers at a reading pace (a 3B Q4 on two cores), where an 8B on two cores fits in memory
 * but answers a word a second. The suggestion stays within that.
 */
export const SUGGESTED_BYTES_PER_CORE = 1024 * MIB;

export interface MemoryJudgement {
  memory: MachineMemory;
  /**
   * The largest chat model (by need) that fits comfortably and answers at a reading pace on this machine's
   * cores, testing ones and those not runnable aside.
   */
  suggested: string | null;
  byId: Map<string, { needBytes: number; fit: MemoryFit }>;
}

/** Every listed model's need against this machine's memory, read once so that one listing is consistent. */
export function judgeMemory(
  listed: readonly { status: ModelStatus; model: KnownModel }[],
  memory: MachineMemory = machineMemory(),
  cores: number = availableParallelism(),
): MemoryJudgement {
  const byId = new Map<string, { needBytes: number; fit: MemoryFit }>();
  for (const { status, model } of listed) {
    const needBytes = memoryNeedOf(model, status.sizeBytes);
    byId.set(status.id, { needBytes, fit: memoryFit(needBytes, memory) });
  }
  const fitting = listed
    .filter(({ status: s }) => s.task === 'chat' && !s.testOnly && !s.notRunnable)
    .filter(({ status: s }) => byId.get(s.id)?.fit === 'comfortably')
    .filter(({ status: s }) => s.sizeBytes <= cores * SUGGESTED_BYTES_PER_CORE)
    .sort((a, b) => (byId.get(b.status.id)?.needBytes ?? 0) - (byId.get(a.status.id)?.needBytes ?? 0));
  return { memory, suggested: fitting[0]?.status.id ?? null, byId };
}
