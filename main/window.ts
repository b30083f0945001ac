import { join } from 'node:path';
import { BrowserWindow, shell } from 'electron';
import { permissionAllowed } from './app-protocol.js';
import { externalUrlAllowed, isSameDocument } from './url-policy.js';

/**
 * The one window: sandboxed, isolated, no Node; it may not navigate, open windows or attach webviews.
 * Links to the web open in the system browser after the URL check. The CSP lives in the page itself.
 */
export function createMainWindow(outDir: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    show: false,
    title: 'Lectern',
    webPreferences: {
      preload: join(outDir, 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      spellcheck: true,
    },
  });
  const contents = win.webContents;
  contents.on('will-navigate', (event, url) => {
    if (isSameDocument(contents.getURL(), url)) return;
    event.preventDefault();
    if (externalUrlAllowed(url)) void shell.openExternal(url);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (externalUrlAllowed(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  // No permission (camera, notifications, geolocation…) is ever needed by the review desk, but reaching its
  // own server on 127.0.0.1 from the lectern://app page (main/app-protocol.ts).
  contents.session.setPermissionRequestHandler((_wc, permission, callback, details) =>
    callback(permissionAllowed(permission, details.requestingUrl)),
  );
  contents.session.setPermissionCheckHandler((_wc, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin),
  );
  win.once('ready-to-show', () => win.show());
  return win;
}
