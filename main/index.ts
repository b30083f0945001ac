import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, protocol, shell } from 'electron';
import { createApp, type LecternApp } from '../server/app.js';
import { providerKeysFrom } from '../server/core/chat/chat-providers.js';
import { loadSettings } from '../server/config/load-settings.js';
import { APP_INDEX, APP_SCHEME, APP_SCHEME_PRIVILEGES, appFiles } from './app-protocol.js';
import { IPC, type PickedFile } from './ipc-channels.js';
import { listenOnLoopback } from './loopback-listen.js';
import { saveExport } from './save-export.js';
import { redactKey, sessionKey } from './session-key.js';
import { createShutdown } from './shutdown.js';
import { createMainWindow } from './window.js';

/**
 * Electron main: composes the same headless server as `lectern serve` (its worker pool runs as worker
 * threads of this process) on 127.0.0.1 with a free port and a per-session key, and one sandboxed window
 * that loads the built UI from the app's own `lectern://app/` scheme (the one origin the server gives CORS
 * to). Only composition lives here; the logic is in plain modules.
 */
const outDir = join(__dirname, '..');

async function start(): Promise<void> {
  const settings = loadSettings({ flags: { host: '127.0.0.1', port: 0 }, env: process.env, cwd: process.cwd() });
  const { key, generated } = sessionKey(process.env.SERVICE_API_KEY);
  const lectern = await createApp({ settings, serviceApiKey: key, chatKey: process.env.LECTERN_CHAT_KEY, providerKeys: providerKeysFrom(process.env), workerFile: join(__dirname, 'worker.js'), owner: { kind: 'desktop' } });
  const { url } = await listenOnLoopback(lectern.server);
  // `lectern` commands see the app holds the folder; its key stays per session, so they cannot use it.
  lectern.published(url);
  lectern.log.info({ url, key: redactKey(key), generated_key: generated }, 'desktop server listening');
  registerIpc(lectern, url, key);
  wireShutdown(lectern);
  protocol.handle(APP_SCHEME, appFiles(join(outDir, 'renderer')));
  const win = createMainWindow(outDir);
  await win.loadURL(APP_INDEX);
}

function registerIpc(lectern: LecternApp, url: string, key: string): void {
  ipcMain.handle(IPC.server, () => ({ url, key }));
  ipcMain.handle(IPC.openFiles, async (event): Promise<PickedFile[]> => {
    const owner = BrowserWindow.fromWebContents(event.sender);
    const options = {
      properties: ['openFile', 'multiSelections'] as ('openFile' | 'multiSelections')[],
      filters: [{ name: 'Documents', extensions: ['pdf', 'docx', 'xlsx', 'xlsm', 'pptx', 'csv', 'tsv', 'html', 'htm', 'md', 'markdown', 'txt', 'png', 'jpg', 'jpeg', 'tif', 'tiff', 'webp'] }],
    };
    const picked = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
    if (picked.canceled) return [];
    return Promise.all(picked.filePaths.map(async (p) => ({ name: basename(p), data: new Uint8Array(await readFile(p)) })));
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

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    const win = BrowserWindow.getAllWindows()[0];
    if (win?.isMinimized()) win.restore();
    win?.focus();
  });
  app.on('window-all-closed', () => app.quit());
  app.whenReady().then(start).catch((err: unknown) => {
    process.stderr.write(`Lectern could not start: ${String(err)}\n`);
    app.exit(1);
  });
}
