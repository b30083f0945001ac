import { fork } from 'node:child_process';

/** Loading a small model takes a second; a large one on a slow disk, longer. Past this the file is not usable here anyway. */
const PROBE_TIMEOUT_MS = 5 * 60_000;

/**
 * Runs a probe script (gguf-probe.js, onnx-probe.js) on one argument and collects its stdout. fork, not
 * execFile: inside the desktop app process.execPath is Electron, and fork is what runs a script with it as
 * plain Node (as for the llama host). execArgv emptied: the server may run under a loader.
 */
export function runProbe(probeFile: string, arg: string): Promise<{ stdout: string; failure?: string }> {
  return new Promise((done) => {
    const child = fork(probeFile, [arg], { execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
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
