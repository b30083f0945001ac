import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { loadSettings } from '../config/load-settings.js';
import type { Settings } from '../schemas/settings.js';
import { acquireDataLock, describeOwner, readDataLock, type DataLockInfo } from '../store/data-lock.js';
import { createClient, type ApiClient } from './client.js';
import { CliError } from './fail.js';
import { err, note } from './term.js';
import { refuseTeamFolderWithoutDatabase } from '../store/team-folder.js';
import { sleep } from '../core/sleep.js';

/** Flags every command takes. */
export interface CommonFlags {
  config?: string;
  dataDir?: string;
  json?: boolean;
}

/**
 * Where a command's data is: a Lectern server that owns the data folder (`lectern serve`, the desktop
 * app), reached over HTTP; or, when none runs, the folder opened by this process with the same services
 * (server/app.ts), holding the folder's lock until the command ends. Either way the command talks HTTP
 * through the same client, so both paths are one code path.
 */
export interface Connection {
  client: ApiClient;
  mode: 'server' | 'local';
  settings: Settings;
  /** The address of the server that owns the folder; null when this command opened it itself. */
  serverUrl: string | null;
  /** Replaces the default Ctrl-C (let go of the folder and exit 130) while a command handles it itself. */
  onInterrupt(handler: (() => void) | null): void;
  close(): Promise<void>;
}

/** Settings as every command reads them: flags, environment, the -c file or ./lectern.yaml, defaults. */
export function settingsFor(flags: CommonFlags, extra: Partial<Record<keyof Settings, unknown>> = {}): Settings {
  return loadSettings({
    flags: { data_dir: flags.dataDir, ...extra },
    env: process.env,
    cwd: process.cwd(),
    configPath: flags.config,
    onWarning: (message) => note(`${err.yellow('warning:')} ${message}`),
  });
}

/** A server that is still starting writes its address into the lock once it listens. */
async function waitForAddress(
  dataDir: string,
  first: DataLockInfo & { alive: boolean },
): Promise<(DataLockInfo & { alive: boolean }) | null> {
  let lock: (DataLockInfo & { alive: boolean }) | null = first;
  for (const end = Date.now() + 60_000; lock?.alive && !lock.url && Date.now() < end; ) {
    await sleep(100);
    lock = readDataLock(dataDir);
  }
  return lock;
}

function keyFor(lock: DataLockInfo): string {
  const fromEnv = process.env.SERVICE_API_KEY?.trim();
  if (fromEnv) return fromEnv;
  if (lock.key_file) {
    try {
      return readFileSync(lock.key_file, 'utf8').trim();
    } catch (e) {
      throw new CliError(
        'SERVER_KEY_UNKNOWN',
        `${describeOwner(lock)} owns the data folder, and its key file ${lock.key_file} cannot be read (${(e as { code?: string }).code ?? String(e)})`,
      );
    }
  }
  if (lock.key_source === 'session') {
    throw new CliError(
      'SERVER_KEY_UNKNOWN',
      `${describeOwner(lock)} has the data folder open, and its key is its own`,
      'quit the app, or start it with SERVICE_API_KEY set and set the same for lectern',
    );
  }
  throw new CliError(
    'SERVER_KEY_UNKNOWN',
    `${describeOwner(lock)} owns the data folder and was started with SERVICE_API_KEY`,
  );
}

function interrupts(onDefault: () => void) {
  let handler: (() => void) | null = null;
  let count = 0;
  const listener = (): void => {
    // A second Ctrl-C always ends the command at once.
    if (++count > 1 || !handler) return onDefault();
    handler();
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', onDefault);
  return {
    set: (h: (() => void) | null) => {
      handler = h;
      count = 0;
    },
    dispose: () => {
      process.removeListener('SIGINT', listener);
      process.removeListener('SIGTERM', onDefault);
    },
  };
}

/**
 * The server that owns the data folder (`lectern serve`, the desktop app), reached over HTTP; null when no
 * live process holds the folder. A command that opened the folder itself holds it: DATA_DIR_LOCKED.
 */
export async function owningServer(settings: Settings): Promise<{ client: ApiClient; url: string } | null> {
  let lock = readDataLock(settings.data_dir);
  if (lock?.alive && lock.owner === 'cli') {
    throw new CliError('DATA_DIR_LOCKED', `the data folder ${settings.data_dir} is in use by ${describeOwner(lock)}`);
  }
  if (lock?.alive) lock = await waitForAddress(settings.data_dir, lock);
  if (!lock?.alive || !lock.url) return null;
  return { client: createClient(lock.url, keyFor(lock), `${settings.data_dir}/lectern.lock`), url: lock.url };
}

/**
 * The flags of `CommonFlags` on a command: -c, --data-dir (`dataDir` says which of its folders the command
 * uses) and, unless `json` is false, --json.
 */
export function commonFlags(
  c: Command,
  dataDir = 'the data folder (default: from the config, else the user data folder)',
  json = true,
): Command {
  c.option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)').option(
    '--data-dir <dir>',
    dataDir,
  );
  return json ? c.option('--json', 'print JSON') : c;
}

/**
 * The folder's owner does `viaServer` when a server owns it; otherwise `here`, which takes the folder itself.
 * Another process may take the folder between the look and the take (DATA_DIR_LOCKED): look again, once.
 */
async function ownerOr<T>(
  settings: Settings,
  viaServer: (server: { client: ApiClient; url: string }) => Promise<T>,
  here: () => Promise<T>,
): Promise<T> {
  // A team server's folder has no single owner: its nodes and commands all open the database.
  if (settings.database_url) return here();
  refuseTeamFolderWithoutDatabase(settings);
  for (let attempt = 0; ; attempt++) {
    const server = await owningServer(settings);
    if (server) return await viaServer(server);
    try {
      return await here();
    } catch (e) {
      if ((e as { code?: string }).code !== 'DATA_DIR_LOCKED' || attempt > 0) throw e;
    }
  }
}

/**
 * For a command that writes the data folder (`command`: its name, shown to another that finds the folder
 * busy): only the folder's owner writes it, so with a server running `viaServer` goes through its routes;
 * otherwise `here` runs in this process under the folder's lock, held until it ends. With a database
 * (a team server), `here` opens the database directly: it takes its own transactions.
 */
export function asOwner<T>(
  settings: Settings,
  command: string,
  viaServer: (client: ApiClient) => Promise<T>,
  here: () => Promise<T>,
): Promise<T> {
  return ownerOr(
    settings,
    (server) => viaServer(server.client),
    async () => {
      if (settings.database_url) return here();
      mkdirSync(settings.data_dir, { recursive: true });
      const lock = acquireDataLock(settings.data_dir, { kind: 'cli', command });
      try {
        return await here();
      } finally {
        lock.release();
      }
    },
  );
}

/**
 * Opens the way to the data folder for `command` (its name, shown to another command that finds the folder
 * busy). `readsDocuments`: the command extracts documents, so a folder it opens itself gets the configured
 * worker threads; the others need one (queries are embedded in the pool) and start faster with one.
 */
export async function connect(
  flags: CommonFlags,
  command: string,
  opts: { readsDocuments?: boolean } = {},
): Promise<Connection> {
  const settings = settingsFor(flags);
  return ownerOr<Connection>(
    settings,
    async (server) => {
      const signals = interrupts(() => process.exit(130));
      return {
        client: server.client,
        mode: 'server',
        settings,
        serverUrl: server.url,
        onInterrupt: signals.set,
        close: async () => signals.dispose(),
      };
    },
    // On a team's database, a command that reads no documents takes none from the team's queue either.
    () =>
      openLocally(
        {
          ...settings,
          workers: opts.readsDocuments ? settings.workers : 1,
          run_tasks: opts.readsDocuments ? settings.run_tasks : false,
        },
        command,
      ),
  );
}

/** Opens the data, runs `work`, and lets go of the data folder whatever happens. */
export async function withConnection<T>(
  flags: CommonFlags,
  command: string,
  work: (c: Connection) => Promise<T>,
  opts: { readsDocuments?: boolean } = {},
): Promise<T> {
  const c = await connect(flags, command, opts);
  try {
    return await work(c);
  } finally {
    await c.close();
  }
}

async function openLocally(settings: Settings, command: string): Promise<Connection> {
  // Loaded only here: `lectern --help`, `init` and a command that talks to a server start fast.
  const [{ createApp }, { providerKeysFrom }, { pino }] = await Promise.all([
    import('../app.js'),
    import('../core/chat/chat-providers.js'),
    import('pino'),
  ]);
  const logLevel = process.env.LECTERN_LOG_LEVEL || 'silent';
  const app = await createApp({
    // The start-up warm-up pays off in a long-running server, not in one command.
    settings: { ...settings, warm_up_rounds: 0 },
    serviceApiKey: process.env.SERVICE_API_KEY,
    chatKey: process.env.LECTERN_CHAT_KEY,
    providerKeys: providerKeysFrom(process.env),
    workerFile: fileURLToPath(new URL('./worker.js', import.meta.url)),
    logger: pino({ level: logLevel }, pino.destination(2)),
    owner: { kind: 'cli', command },
  });
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => (closing ??= app.close().finally(() => signals.dispose()));
  // Ctrl-C by default: stop the work cleanly (jobs resume at the next start), let go of the folder, exit.
  const signals = interrupts(() => {
    void close().finally(() => process.exit(130));
  });
  try {
    const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
    return {
      client: createClient(url, app.apiKey.key),
      mode: 'local',
      settings,
      serverUrl: null,
      onInterrupt: signals.set,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
