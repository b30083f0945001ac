import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { repoRoot } from './app.js';

/** The `lectern` a user runs: bin/lectern.js over the built dist/cli.js. */
export const lecternBin = fileURLToPath(new URL('../../bin/lectern.js', import.meta.url));
const bridge = fileURLToPath(new URL('./pty-bridge.py', import.meta.url));

/** Keys as a terminal sends them. */
export const KEY = {
  enter: '\r',
  ctrlC: '\x03',
  ctrlD: '\x04',
  ctrlU: '\x15',
  up: '\x1b[A',
  down: '\x1b[B',
  left: '\x1b[D',
  right: '\x1b[C',
  tab: '\t',
} as const;

/** What a terminal shows, without colours, cursor moves and carriage returns. */
export const plain = (s: string): string => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

export interface Run {
  /** Everything written so far, as the terminal (or pipe) received it. */
  raw(): string;
  text(): string;
  /** Pieces of output with the time each arrived (ms since start). */
  chunks: { at: number; data: string }[];
  write(s: string): void;
  /** Types `s` one key at a time, as a person does. */
  type(s: string, delayMs?: number): Promise<void>;
  /** Resolves once the plain text from `from` on matches; rejects after `timeoutMs` with what was seen. */
  waitFor(pattern: string | RegExp, opts?: { timeoutMs?: number; from?: number; raw?: boolean }): Promise<void>;
  /** The exit status. */
  exited: Promise<number>;
  stderr(): string;
  child: ChildProcessWithoutNullStreams;
}

/** Environment for a CLI under test: nothing of the developer's Lectern settings leaks in. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('LECTERN_') && k !== 'SERVICE_API_KEY' && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') env[k] = v;
  return { ...env, TERM: 'xterm-256color', ...extra };
}

/** Commands still running: a test that failed or timed out before stopping its command leaves none behind. */
const running = new Set<ChildProcessWithoutNullStreams>();
afterAll(() => {
  // SIGTERM: the bridge passes it on to its command (then SIGKILL if it lingers).
  for (const child of running) child.kill('SIGTERM');
});

function track(child: ChildProcessWithoutNullStreams): Run {
  running.add(child);
  child.once('close', () => running.delete(child));
  const started = performance.now();
  let out = '';
  let err = '';
  const chunks: Run['chunks'] = [];
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    out += d;
    chunks.push({ at: performance.now() - started, data: d });
    for (const w of waiters) w();
  });
  child.stderr.on('data', (d: string) => {
    err += d;
    for (const w of waiters) w();
  });
  const exited = new Promise<number>((resolve) =>
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))),
  );
  const run: Run = {
    raw: () => out,
    text: () => plain(out),
    stderr: () => plain(err),
    chunks,
    child,
    write: (s) => void child.stdin.write(s),
    async type(s, delayMs = 12) {
      for (const ch of s) {
        child.stdin.write(ch);
        await new Promise((r) => setTimeout(r, delayMs));
      }
    },
    waitFor(pattern, { timeoutMs = 60_000, from = 0, raw = false } = {}) {
      const test = () => {
        const seen = raw ? out.slice(from) : plain(out + err).slice(from);
        return typeof pattern === 'string' ? seen.includes(pattern) : pattern.test(seen);
      };
      return new Promise<void>((resolve, reject) => {
        if (test()) return resolve();
        let done = false;
        const check = () => {
          if (done || !test()) return;
          done = true;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `timed out waiting for ${String(pattern)}; the terminal shows:\n${plain(out)}\nstderr:\n${plain(err)}`,
            ),
          );
        }, timeoutMs);
        const onExit = () =>
          setTimeout(() => {
            if (done) return;
            cleanup();
            reject(
              new Error(`exited before ${String(pattern)}; the terminal shows:\n${plain(out)}\nstderr:\n${plain(err)}`),
            );
          }, 50);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
          child.removeListener('close', onExit);
        };
        waiters.add(check);
        child.once('close', onExit);
      });
    },
    exited,
  };
  return run;
}

/** Runs `argv` in a real pseudo-terminal (stdin, stdout and stderr all the terminal). */
export function inPty(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; cols?: number }): Run {
  const env = { ...opts.env, PTY_COLS: String(opts.cols ?? 100) };
  return track(spawn('python3', [bridge, ...argv], { cwd: opts.cwd, env }) as ChildProcessWithoutNullStreams);
}

/** Runs `lectern ARGS` in a real pseudo-terminal. */
export function lecternInPty(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; cols?: number }): Run {
  return inPty([process.execPath, lecternBin, ...args], { ...opts, env: opts.env ?? cliEnv() });
}

/** Runs `lectern ARGS` with pipes, as a script does: `input` is its stdin. */
export function lecternPiped(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): Run {
  const child = spawn(process.execPath, [lecternBin, ...args], {
    cwd: opts.cwd,
    env: opts.env ?? cliEnv(),
  }) as ChildProcessWithoutNullStreams;
  const run = track(child);
  if (opts.input !== undefined) child.stdin.end(opts.input);
  return run;
}

/** Runs to the end and returns the exit status with stdout and stderr as plain text. */
export async function lecternDone(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; pty?: boolean },
) {
  const run = opts.pty ? lecternInPty(args, opts) : lecternPiped(args, { ...opts, input: opts.input ?? '' });
  const code = await run.exited;
  return { code, stdout: run.text(), stderr: run.stderr(), raw: run.raw() };
}

export { repoRoot };
