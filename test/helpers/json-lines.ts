/**
 * A child process followed through the JSON lines it prints (a node's pino log, a test worker's events):
 * every line kept as it comes, and a wait for the first line that matches, which fails with the process's
 * stderr if it exits first.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export interface JsonLines<T> {
  /** Every line printed so far that starts with `{`, parsed. */
  readonly lines: T[];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * The first line, printed already or later, that `match` accepts. Rejects if the process exits first, or
   * after `timeoutMs` when one is given (else it waits as long as the process lives).
   */
  first(match: (line: T) => boolean, timeoutMs?: number): Promise<T>;
}

/** Follows `child` from now on; `name` says whose lines they are in errors. */
export function jsonLines<T>(child: ChildProcessByStdio<null, Readable, Readable>, name: string): JsonLines<T> {
  const lines: T[] = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  let gone: string | undefined;
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    lines.push(JSON.parse(line) as T);
    for (const l of [...listeners]) l();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      gone = `exited with ${code ?? signal}`;
      for (const l of [...listeners]) l();
      resolve({ code, signal });
    }),
  );
  const first: JsonLines<T>['first'] = (match, timeoutMs) =>
    new Promise((resolve, reject) => {
      let seen = 0;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => done(new Error(`${name} printed no such line in ${timeoutMs} ms`)), timeoutMs);
      const done = (result: T | Error): void => {
        clearTimeout(timer);
        listeners.delete(check);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const check = (): void => {
        for (; seen < lines.length; seen++) if (match(lines[seen]!)) return done(lines[seen]!);
        if (gone) done(new Error(`${name} ${gone}: ${stderr}`));
      };
      listeners.add(check);
      check();
    });
  return { lines, exited, first };
}
