import { fork } from 'node:child_process';
import { open } from 'node:fs/promises';
import type { GgufFacts, GgufProbeResult } from '../llm/gguf-probe-protocol.js';
import { ModelError } from '../model-error.js';

/** Loading a small GGUF takes a second; a large one on a slow disk, longer. Past this the file is not usable here anyway. */
const PROBE_TIMEOUT_MS = 5 * 60_000;

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
 * fork, not execFile: inside the desktop app process.execPath is Electron, and fork is what runs a script
 * with it as plain Node (as for the llama host). execArgv emptied: the server may run under a loader.
 */
function runProbe(probeFile: string, path: string): Promise<{ stdout: string; failure?: string }> {
  return new Promise((done) => {
    const child = fork(probeFile, [path], { execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => void (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.on('error', (err) => (clearTimeout(timer), done({ stdout, failure: err.message })));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const last = stderr.trim().split('\n').at(-1) ?? '';
      done({ stdout, failure: code === 0 ? undefined : `${signal ?? `exit ${code}`} ${last}`.trim() });
    });
  });
}

/**
 * The GGUF's metadata and proof that llama.cpp loads it, from the probe child process (llm/gguf-probe.ts,
 * built as dist/gguf-probe.js): a damaged file may crash llama.cpp, and then only the child goes.
 */
export async function probeGguf(probeFile: string, path: string, shownAs = path): Promise<GgufFacts> {
  if (!(await hasGgufMagic(path))) throw new ModelError('MODEL_FILE_INVALID', `${shownAs} is not a GGUF file (it does not start with the bytes "GGUF")`, { source: shownAs });
  const { stdout, failure } = await runProbe(probeFile, path);
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let result: GgufProbeResult | undefined;
  try {
    result = JSON.parse(line) as GgufProbeResult;
  } catch {
    throw new ModelError('MODEL_FILE_INVALID', `llama.cpp stopped while reading ${shownAs} (${failure ?? 'no answer'}): the file is damaged or not a model llama.cpp runs`, { source: shownAs });
  }
  if (!result.ok) throw new ModelError(result.code, `${shownAs}: ${result.message}`, { source: shownAs });
  return result.facts;
}
