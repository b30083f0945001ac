import { spawn, type ChildProcess } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_FILE_NAMES } from '../config/load-settings.js';
import { err, note } from './term.js';

export interface ReloadFlags {
  config?: string;
  host?: string;
  port?: string;
  dataDir?: string;
  workers?: string;
}

/** The arguments that start the same server again, paths made absolute. */
function serveArgs(flags: ReloadFlags): string[] {
  return [
    'serve',
    ...(flags.config ? ['-c', resolve(flags.config)] : []),
    ...(flags.host ? ['--host', flags.host] : []),
    ...(flags.port ? ['-p', flags.port] : []),
    ...(flags.dataDir ? ['--data-dir', resolve(flags.dataDir)] : []),
    ...(flags.workers ? ['--workers', flags.workers] : []),
  ];
}

/**
 * `lectern serve --reload`: runs the server as a child process and starts a new one when the config file
 * or the built code (dist/*.js, rebuilt by `npm run build:node`) changes. A new server starts only once
 * the old one has stopped and let go of the data folder. Folders are watched rather than files, as
 * editors and esbuild replace a file instead of writing into it.
 */
export function superviseReload(flags: ReloadFlags, dataDir: string): Promise<void> {
  const distDir = dirname(fileURLToPath(import.meta.url));
  const configs = flags.config ? [resolve(flags.config)] : CONFIG_FILE_NAMES.map((n) => resolve(n));
  const args = [process.argv[1]!, ...serveArgs(flags)];
  let child: ChildProcess | null = null;
  let restartPending = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const start = (): void => {
    // The child runs with this process's node flags (the launcher's --v8-pool-size among them).
    const c = spawn(process.execPath, [...process.execArgv, ...args], { stdio: 'inherit', env: process.env });
    child = c;
    c.on('exit', (code, signal) => {
      if (child === c) child = null;
      if (stopping) return process.exit(0);
      if (restartPending) {
        restartPending = false;
        return start();
      }
      note(
        `${err.yellow('lectern serve:')} the server stopped (${signal ?? `exit ${code}`}); waiting for a change to ${basename(configs[0]!)} or dist/ to start it again`,
      );
    });
  };

  const changed = (what: string): void => {
    clearTimeout(timer);
    // esbuild writes several files and editors save in steps: one restart for the lot.
    timer = setTimeout(() => {
      note(`${err.cyan('lectern serve:')} ${what} changed; restarting`);
      if (!child) return start();
      restartPending = true;
      child.kill('SIGTERM');
    }, 300);
  };

  const watchers: FSWatcher[] = [
    watch(distDir, (_e, name) => {
      if (name && /\.(m?js)$/.test(String(name))) changed(join('dist', String(name)));
    }),
    ...[...new Set(configs.map((c) => dirname(c)))].map((dir) =>
      watch(dir, (_e, name) => {
        const hit = configs.find((c) => dirname(c) === dir && basename(c) === String(name));
        if (hit) changed(hit);
      }),
    ),
  ];

  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    for (const w of watchers) w.close();
    clearTimeout(timer);
    if (!child) process.exit(0);
    // On a terminal the child got the same Ctrl-C; a kill from elsewhere is passed on.
    child.kill('SIGTERM');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  note(
    `${err.cyan('lectern serve:')} --reload: watching ${configs.join(', ')} and ${distDir} (data folder ${dataDir})`,
  );
  start();
  return new Promise(() => undefined);
}
