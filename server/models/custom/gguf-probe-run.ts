import { open } from 'node:fs/promises';
import type { GgufFacts, GgufProbeResult } from '../llm/gguf-probe-protocol.js';
import { ModelError } from '../model-error.js';
import { runProbe } from './probe-process.js';

/** "GGUF" at offset 0: anything else is not a GGUF, whatever its name says. */
export async function hasGgufMagic(path: string): Promise<boolean> {
  const fd = await open(path, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fd.read(head, 0, 4, 0);
    return bytesRead === 4 && head.toString('latin1') === 'GGUF';
  } finally {
    await fd.close();
  }
}

/**
 * The GGUF's metadata and proof that llama.cpp loads it, from the probe child process (llm/gguf-probe.ts,
 * built as dist/gguf-probe.js): a damaged file may crash llama.cpp, and then only the child goes.
 */
export async function probeGguf(probeFile: string, path: string, shownAs = path): Promise<GgufFacts> {
  if (!(await hasGgufMagic(path)))
    throw new ModelError(
      'MODEL_FILE_INVALID',
      `${shownAs} is not a GGUF file (it does not start with the bytes "GGUF")`,
      { source: shownAs },
    );
  const { stdout, failure } = await runProbe(probeFile, path);
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let result: GgufProbeResult | undefined;
  try {
    result = JSON.parse(line) as GgufProbeResult;
  } catch {
    throw new ModelError(
      'MODEL_FILE_INVALID',
      `llama.cpp stopped while reading ${shownAs} (${failure ?? 'no answer'}): the file is damaged or not a model llama.cpp runs`,
      { source: shownAs },
    );
  }
  if (!result.ok) throw new ModelError(result.code, `${shownAs}: ${result.message}`, { source: shownAs });
  return result.facts;
}
