import { join } from 'node:path';
import { app, BrowserWindow, ipcMain, shell } from 'electron';
import { createApp, type LecternApp } from '../server/app.js';
import { loadSettings } from '../server/config/load-settings.js';

/**
 * Electron main: starts the same headless server as `lectern serve` on 127.0.0.1 with a free port, and
 * one sandboxed window for the review UI. The worker pool runs worker threads of this process.
 */
let lectern: LecternApp | undefined;
let address = '';

if (!app.requestSingleInstanceLock()) app.quit();

async function start(): Promise<void> {
  const settings = loadSettings({ flags: { host: '127.0.0.1', port: 0 }, env: process.env, cwd: process.cwd() });
  lectern = await createApp({ settings, serviceApiKey: process.env.SERVICE_API_KEY, workerFile: join(__dirname, 'worker.js') });
  address = await lectern.server.listen({ host: settings.host, port: settings.port });
  ipcMain.handle('lectern:server', () => ({ url: address, key: lectern!.apiKey.key }));
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    webPreferences: { preload: join(__dirname, '../preload/index.cjs'), contextIsolation: true, sandbox: true, nodeIntegration: false },
  });
  // Nothing navigates away from the app; links open in the system browser after a scheme check.
  win.webContents.on('will-navigate', (e) => e.preventDefault());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  await win.loadFile(join(__dirname, '../renderer/index.html'));
}

app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus());
app.whenReady().then(start, (err: unknown) => {
  console.error(err);
  app.exit(1);
});
app.on('window-all-closed', () => app.quit());
app.on('will-quit', (e) => {
  if (!lectern) return;
  e.preventDefault();
  const closing = lectern;
  lectern = undefined;
  void closing.close().finally(() => app.exit(0));
});
