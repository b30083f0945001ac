import { h } from '../ui/dom.js';
import { createApi, type Api } from './client.js';

/** The preload's bridge (main/preload.ts) when running in the desktop app. */
export interface Bridge {
  server(): Promise<{ url: string; key: string }>;
  openFiles?(): Promise<{ name: string; data: Uint8Array }[]>;
  saveExport?(jobId: string): Promise<string>;
  revealFile?(path: string): Promise<void>;
}

export function desktopBridge(): Bridge | undefined {
  return (window as unknown as { lectern?: Bridge }).lectern;
}

const KEY_SLOT = 'lectern.api-key';

async function keyWorks(baseUrl: string, key: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/health`, { headers: { 'x-api-key': key } });
  return res.ok;
}

/** The key form: asked once per tab, kept in sessionStorage (gone when the tab closes, never on disk). */
function askForKey(baseUrl: string, wrong: boolean): Promise<string> {
  return new Promise((resolve) => {
    const input = h('input', {
      type: 'password',
      name: 'api-key',
      autocomplete: 'off',
      required: true,
      'aria-label': 'API key',
      placeholder: 'API key',
    });
    const error = h('p', { class: 'error', role: 'alert' }, wrong ? 'That key was not accepted.' : '');
    const form = h(
      'form',
      { class: 'key-form' },
      h('h1', {}, 'Lectern'),
      h(
        'p',
        {},
        'Enter the API key of this server. ',
        h('code', {}, 'lectern serve'),
        ' prints where it is stored; it is asked once per tab.',
      ),
      input,
      error,
      h('button', { type: 'submit', class: 'primary' }, 'Open the review desk'),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const key = input.value.trim();
      if (key && (await keyWorks(baseUrl, key).catch(() => false))) {
        sessionStorage.setItem(KEY_SLOT, key);
        form.remove();
        resolve(key);
      } else {
        error.textContent = 'That key was not accepted.';
        input.select();
      }
    });
    document.body.appendChild(form);
    input.focus();
  });
}

/** Where the API is and its key: from the desktop bridge, else this page's origin and the user. */
export async function connect(): Promise<{ api: Api; bridge?: Bridge }> {
  const bridge = desktopBridge();
  if (bridge) {
    const s = await bridge.server();
    return { api: createApi({ baseUrl: s.url, key: s.key }), bridge };
  }
  const baseUrl = location.origin;
  const saved = sessionStorage.getItem(KEY_SLOT);
  const ok = saved ? await keyWorks(baseUrl, saved).catch(() => false) : false;
  const key = ok && saved ? saved : await askForKey(baseUrl, Boolean(saved));
  const forget = () => {
    sessionStorage.removeItem(KEY_SLOT);
    location.reload();
  };
  return { api: createApi({ baseUrl, key }, { onUnauthorized: forget }) };
}
