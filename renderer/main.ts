import { fetchCapabilities } from './src/api/capabilities.js';
import { connect } from './src/api/connection.js';
import { startShell } from './src/app-shell.js';
import { errorText } from './src/ui/toast.js';

// Entry of the review UI, the same build in the desktop window (file URL, key from the preload) and in a
// browser served by `lectern serve` at / (key asked once per tab).
async function boot(): Promise<void> {
  const root = document.getElementById('app');
  if (!root) throw new Error('index.html has no #app');
  const { api, bridge } = await connect();
  const caps = await fetchCapabilities(api.baseUrl);
  startShell({ api, caps, ...(bridge ? { bridge } : {}) }, root);
  document.documentElement.dataset.ready = 'true';
}

boot().catch((err: unknown) => {
  document.body.textContent = `Lectern could not start: ${errorText(err)}`;
});
