import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describeOwner, readDataLock } from '../../store/data-lock.js';
import { action, CliError } from '../fail.js';
import { settingsFor } from '../owner.js';
import { superviseReload, type ReloadFlags } from '../reload.js';
import { err, note } from '../term.js';
import { stopOnSignals } from '../stop-on-signals.js';

export interface ServeFlags extends ReloadFlags {
  reload?: boolean;
  databaseUrl?: string;
  objectStoreUrl?: string;
  /** false with --no-worker: with a database, this node reads no documents. */
  worker?: boolean;
}

/** `lectern serve`: the headless server, the same one Electron's main process starts. */
async function serve(flags: ServeFlags): Promise<void> {
  const settings = settingsFor(flags, {
    host: flags.host,
    port: flags.port,
    workers: flags.workers,
    database_url: flags.databaseUrl,
    object_store_url: flags.objectStoreUrl,
    run_tasks: flags.worker === false ? false : undefined,
  });
  if (flags.reload) return superviseReload(flags, settings.data_dir);
  if (!settings.run_tasks && !settings.database_url) {
    note(
      `${err.yellow('warning:')} --no-worker (run_tasks: false) applies to a team server only: without a database this server reads its own uploads`,
    );
  }
  const held = readDataLock(settings.data_dir);
  if (held?.alive) {
    throw new CliError(
      'DATA_DIR_LOCKED',
      `the data folder ${settings.data_dir} is in use by ${describeOwner(held)}${held.url ? ` at ${held.url}` : ''}`,
      'stop it first, or give another --data-dir',
    );
  }
  const [{ createApp }, { providerKeysFrom }] = await Promise.all([
    import('../../app.js'),
    import('../../core/chat/chat-providers.js'),
  ]);
  const app = await createApp({
    settings,
    serviceApiKey: process.env.SERVICE_API_KEY,
    chatKey: process.env.LECTERN_CHAT_KEY,
    providerKeys: providerKeysFrom(process.env),
    workerFile: fileURLToPath(new URL('./worker.js', import.meta.url)),
  });
  let address: string;
  try {
    address = await app.server.listen({ host: settings.host, port: settings.port });
  } catch (e) {
    await app.close();
    throw e;
  }
  // Commands run on this data folder now talk to this server (its address and key file are in the lock).
  app.published(address);
  app.log.info({ address, data_dir: settings.data_dir }, 'lectern listening');
  if (app.apiKey.file) app.log.info({ api_key_file: app.apiKey.file }, 'API key generated: send it in X-API-Key');
  const key = app.apiKey.file ? `API key in ${app.apiKey.file}` : 'API key: SERVICE_API_KEY';
  note(
    `${err.green('lectern serve:')} ${settings.data_dir} on ${address} (${key}; explorer ${address}/docs; review desk ${address}/). Ctrl-C stops.`,
  );
  stopOnSignals({ log: app.log, close: () => app.close() });
}

const EXAMPLES = `
Examples:
  $ lectern serve                                  # ./lectern.yaml if present, else defaults; 127.0.0.1:8000
  $ lectern serve -c longtrainer.yaml              # a Long-Trainer config: llm, embedding, chunking, server
  $ lectern serve --host 0.0.0.0 -p 8080 --data-dir /srv/lectern
  $ lectern serve --reload                         # restarts when the config file or dist/ changes
  $ lectern serve --database-url postgres://lectern@db:5432/lectern   # records and vectors in PostgreSQL
  $ lectern serve --database-url postgres://lectern@db/lectern --data-dir /mnt/lectern --no-worker   # API only
  $ lectern serve --database-url postgres://lectern@db/lectern --object-store-url s3://lectern/team   # files in S3

Without a database, while it runs, other lectern commands on the same data folder go through it. The
API key is SERVICE_API_KEY or the one generated into <data_dir>/api-key.

With a database, several nodes (\`lectern serve\` and \`lectern worker\`) share one database and one data
folder (every node mounts it): any node's worker threads read any node's uploads, unless it was started
with --no-worker (setting run_tasks: false). --workers 0 means one thread per core, not none. Commands
such as \`lectern keys\` open the database directly.

With --object-store-url s3://bucket/prefix (or LECTERN_OBJECT_STORE_URL), originals, page images and
exports go to that S3-compatible bucket instead of the data folder's files/ and exports/: the endpoint,
region and keys come from AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
The server refuses to start, in one line, when the bucket cannot be reached or written.`;

export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP server: both APIs, the docs at /docs, the review desk at /')
    .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
    .option('--host <host>', 'listen host (default 127.0.0.1)')
    .option('-p, --port <port>', 'listen port (default 8000)')
    .option('--data-dir <dir>', 'where the database, originals, indexes and models live')
    .option('--workers <n>', 'worker threads (0 = one per core)')
    .option(
      '--database-url <url>',
      "a team server's PostgreSQL (postgres://…, with pgvector); default: the data folder's SQLite",
    )
    .option(
      '--object-store-url <url>',
      'keep originals, page images and exports in an S3 bucket (s3://bucket/prefix; AWS_* variables); default: the data folder',
    )
    .option(
      '--no-worker',
      'with a database: read no documents here, only queue them for other nodes (run_tasks: false)',
    )
    .option('--reload', 'restart when the configuration file or the built code (dist/) changes')
    .addHelpText('after', EXAMPLES)
    .action(action('serve', serve));
}
