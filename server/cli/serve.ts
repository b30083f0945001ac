import { fileURLToPath } from 'node:url';
import { createApp } from '../app.js';
import { loadSettings } from '../config/load-settings.js';

export interface ServeFlags {
  config?: string;
  host?: string;
  port?: string;
  dataDir?: string;
  workers?: string;
}

/** `lectern serve`: the headless server, the same one Electron's main process starts. */
export async function serve(flags: ServeFlags): Promise<void> {
  const settings = loadSettings({
    flags: { host: flags.host, port: flags.port, data_dir: flags.dataDir, workers: flags.workers },
    env: process.env,
    cwd: process.cwd(),
    configPath: flags.config,
  });
  const app = await createApp({
    settings,
    serviceApiKey: process.env.SERVICE_API_KEY,
    workerFile: fileURLToPath(new URL('./worker.js', import.meta.url)),
  });
  const address = await app.server.listen({ host: settings.host, port: settings.port });
  app.log.info({ address, data_dir: settings.data_dir }, 'lectern listening');
  if (app.apiKey.file) app.log.info({ api_key_file: app.apiKey.file }, 'API key generated: send it in X-API-Key');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
