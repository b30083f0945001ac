import { createApp, type LecternApp } from '../server/app.js';
import { providerKeysFrom } from '../server/core/chat/chat-providers.js';
import { loadSettings } from '../server/config/load-settings.js';
import { listenOnLoopback } from './loopback-listen.js';
import { redactKey, sessionKey } from './session-key.js';

export interface DesktopServerOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The built worker bundle: out/main/worker.js beside the app's main, dist/worker.js under plain Node. */
  workerFile: string;
  /** A data folder other than the user's (the smoke test's scratch folder); flags beat env and config. */
  dataDir?: string;
}

export interface DesktopServer {
  lectern: LecternApp;
  url: string;
  key: string;
  close(): Promise<void>;
}

/**
 * The desktop app's server: the same headless app as `lectern serve` (its worker pool runs as worker
 * threads of this process) on 127.0.0.1 with a free port and a per-session key. Nothing here needs
 * Electron, so the app and the smoke test's tests under plain Node start it the same way.
 */
export async function startDesktopServer({
  env,
  cwd,
  workerFile,
  dataDir,
}: DesktopServerOptions): Promise<DesktopServer> {
  const settings = loadSettings({ flags: { host: '127.0.0.1', port: 0, data_dir: dataDir }, env, cwd });
  const { key, generated } = sessionKey(env.SERVICE_API_KEY);
  const lectern = await createApp({
    settings,
    serviceApiKey: key,
    chatKey: env.LECTERN_CHAT_KEY,
    providerKeys: providerKeysFrom(env),
    workerFile,
    owner: { kind: 'desktop' },
  });
  let url: string;
  try {
    ({ url } = await listenOnLoopback(lectern.server));
  } catch (err) {
    await lectern.close();
    throw err;
  }
  // `lectern` commands see the app holds the folder; its key stays per session, so they cannot use it.
  lectern.published(url);
  lectern.log.info({ url, key: redactKey(key), generated_key: generated }, 'desktop server listening');
  return { lectern, url, key, close: () => lectern.close() };
}
