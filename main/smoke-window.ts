import type { BrowserWindow } from 'electron';

/**
 * Runs in the page: resolves 'ready' once the desk has connected to its server and drawn its shell
 * (renderer/main.ts marks <html data-ready="true">), or with the page's text when it shows that it could
 * not start. Until either happens it watches the document instead of polling it.
 */
const DESK_STATE = `new Promise((resolve) => {
  const state = () => {
    if (document.documentElement.dataset.ready === 'true') return 'ready';
    const text = document.body ? document.body.textContent || '' : '';
    return text.startsWith('Lectern could not start') ? text : '';
  };
  const now = state();
  if (now) return resolve(now);
  const watch = new MutationObserver(() => {
    const seen = state();
    if (seen) { watch.disconnect(); resolve(seen); }
  });
  watch.observe(document.documentElement, { attributes: true, childList: true, subtree: true, characterData: true });
})`;

/**
 * The smoke test's window check: the window loaded the desk from the app's scheme, the desk reached the
 * server through the preload's key, and it is drawn. Rejects with what went wrong: the page's own error,
 * a renderer that died, or nothing at all within `timeoutMs`.
 */
export async function waitForDesk(win: BrowserWindow, timeoutMs = 60_000): Promise<string> {
  const contents = win.webContents;
  let reject!: (err: Error) => void;
  const failed = new Promise<never>((_, r) => (reject = r));
  const timer = setTimeout(
    () => reject(new Error(`the window did not show the desk within ${timeoutMs / 1000} s`)),
    timeoutMs,
  );
  const onGone = (_event: unknown, details: { reason: string }) =>
    reject(new Error(`the window's renderer stopped: ${details.reason}`));
  contents.once('render-process-gone', onGone);
  try {
    const state: unknown = await Promise.race([contents.executeJavaScript(DESK_STATE), failed]);
    if (state !== 'ready') throw new Error(`the window did not load the desk: ${String(state)}`);
    return 'the window loaded the desk';
  } finally {
    clearTimeout(timer);
    contents.off('render-process-gone', onGone);
  }
}
