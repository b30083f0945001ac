import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, protocol, shell } from 'electron';
import type { LecternApp } from '../server/app.js';
import { APP_INDEX, APP_SCHEME, APP_SCHEME_PRIVILEGES, appFiles } from './app-protocol.js';
import { startDesktopServer, type DesktopServer } from './desktop-server.js';
import { IPC, type PickedFile } from './ipc-channels.js';
import { saveExport } from './save-export.js';
import { createShutdown } from './shutdown.js';
import { isSmokeTest, runSmokeTest } from './smoke-test.js';
import { waitForDesk } from './smoke-window.js';
import { createMainWindow } from './window.js';

/**
 * Electron main: composes the same headless server as `lectern serve` (its worker pool runs as worker
 * threads of this process) on 127.0.0.1 with a free port and a per-session key, and one sandboxed window
 * that loads the built UI from the app's own `lectern://app/` scheme (the one origin the server gives CORS
 * to). Only composition lives here; the logic is in plain modules.
 */
const outDir = join(__dirname, '..');
const workerFile = join(__dirname, 'worker.js');

async function start(): Promise<void> {
  const server = await startDesktopServer({ env: process.env, cwd: process.cwd(), workerFile });
  wireShutdown(server.lectern);
  await openDesk(server);
}

async function openDesk({ lectern, url, key }: DesktopServer): Promise<BrowserWindow> {
  registerIpc(lectern, url, key);
  protocol.handle(APP_SCHEME, appFiles(join(outDir, 'renderer')));
  const win = createMainWindow(outDir);
  await win.loadURL(APP_INDEX);
  return win;
}

/**
 * `--smoke-test` (main/smoke-test.ts): the same server and window over a scratch data folder and browser
 * profile, so a run beside the user's own copy of the app touches none of their data; then exit 0 or 1.
 */
async function smokeTest(scratch: string): Promise<void> {
  const outcome = await runSmokeTest({
    start: () =>
      startDesktopServer({ env: process.env, cwd: process.cwd(), workerFile, dataDir: join(scratch, 'data') }),
    desk: async (server) => {
      try {
        return await waitForDesk(await openDesk(server));
      } finally {
        // Gone before the server closes, as on a normal quit: the desk's open requests end with it.
        for (const win of BrowserWindow.getAllWindows()) win.destroy();
      }
    },
  });
  // Written before exiting: a pipe on macOS takes writes asynchronously, and app.exit would cut the line off.
  const stream = outcome.code === 0 ? process.stdout : process.stderr;
  await new Promise((written) => stream.write(`${outcome.line}\n`, written));
  // Chromium may still hold files of its profile (Windows will not delete them): a leftover scratch folder is harmless.
  try {
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    /* left in the temp folder */
  }
  app.exit(outcome.code);
}

function registerIpc(lectern: LecternApp, url: string, key: string): void {
  ipcMain.handle(IPC.server, () => ({ url, key }));
  ipcMain.handle(IPC.openFiles, async (event): Promise<PickedFile[]> => {
    const owner = BrowserWindow.fromWebContents(event.sender);
    const options = {
      properties: ['openFile', 'multiSelections'] as ('openFile' | 'multiSelections')[],
      filters: [
        {
          name: 'Documents',
          extensions: [
            'pdf',
            'docx',
            'xlsx',
            'xlsm',
            'pptx',
            'csv',
            'tsv',
            'html',
            'htm',
            'md',
            'markdown',
            'txt',
            'png',
            'jpg',
            'jpeg',
            'tif',
            'tiff',
            'webp',
          ],
        },
      ],
    };
    const picked = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
    if (picked.canceled) return [];
    return Promise.all(
      picked.filePaths.map(async (p) => ({ name: basename(p), data: new Uint8Array(await readFile(p)) })),
    );
  });
  ipcMain.handle(IPC.saveExport, async (_event, jobId: unknown) => {
    if (typeof jobId !== 'string' || !/^[\w-]{1,100}$/.test(jobId)) throw new Error('not a job id');
    return saveExport({ url, key, jobId, dir: app.getPath('downloads') });
  });
  ipcMain.handle(IPC.revealFile, (_event, path: unknown) => {
    // Only what this session saved under Downloads: the window cannot make the file manager open anything else.
    if (typeof path !== 'string' || !path.startsWith(app.getPath('downloads'))) throw new Error('not an exported file');
    shell.showItemInFolder(path);
  });
  lectern.log.debug('ipc handlers registered');
}

function wireShutdown(lectern: LecternApp): void {
  // createApp's close stops the server, then the runner, the pool and the database, in that order.
  const shutdown = createShutdown([{ name: 'lectern', run: () => lectern.close() }], 10_000);
  app.on('will-quit', (event) => {
    event.preventDefault();
    void shutdown().then((report) => {
      if (report.failed.length) lectern.log.error({ failed: report.failed }, 'shutdown incomplete');
      app.exit(report.failed.length ? 1 : 0);
    });
  });
}

// Must happen before the app is ready: the scheme's privileges cannot change afterwards.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);

if (isSmokeTest(process.argv)) {
  const scratch = mkdtempSync(join(tmpdir(), 'lectern-smoke-'));
  app.setPath('userData', join(scratch, 'profile'));
  // Not quit when the window goes: the smoke test decides how the run ends, and a window that closed fails it.
  app.on('window-all-closed', () => undefined);
  app
    .whenReady()
    .then(() => smokeTest(scratch))
    .catch((err: unknown) => {
      process.stderr.write(`smoke test failed: ${String(err).replace(/\s+/g, ' ')}\n`, () => app.exit(1));
    });
} else if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const win = BrowserWindow.getAllWindows()[0];
    if (win?.isMinimized()) win.restore();
    win?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app
    .whenReady()
    .then(start)
    .catch((err: unknown) => {
      process.stderr.write(`Lectern could not start: ${String(err)}\n`);
      app.exit(1);
    });
}
