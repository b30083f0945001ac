import type { Command } from 'commander';
import { systemClock } from '../../core/clock.js';
import { createKeysService, type KeyView, type NewKey } from '../../core/keys/keys-service.js';
import { ROLES } from '../../core/keys/roles.js';
import type { Settings } from '../../schemas/settings.js';
import { findAppRoot } from '../../store/app-paths.js';
import { openStore } from '../../store/open-store.js';
import type { ApiClient } from '../client.js';
import { action } from '../fail.js';
import { examples } from '../help-text.js';
import { asOwner, commonFlags, settingsFor, type CommonFlags } from '../owner.js';
import { err, note, print, table } from '../term.js';

interface CreateFlags extends CommonFlags {
  role: string;
  bots?: string;
  jobs?: string;
}

const ids = (list: string | undefined): string[] =>
  (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** What to try next when the keys store refuses, by its error code. */
const HINTS: Record<string, (name: string) => string> = {
  KEY_EXISTS: (name) => `revoke it first (lectern keys revoke ${name}) or choose another name`,
  KEY_NOT_FOUND: () => 'lectern keys list shows every key',
  VALIDATION_FAILED: () => 'lectern keys create --help says what names, roles and scopes may be',
};

/** The three things `lectern keys` does, the same whether a server does them or this process. */
interface Keys {
  create(k: NewKey): Promise<KeyView & { secret: string }>;
  list(): Promise<KeyView[]>;
  revoke(name: string): Promise<KeyView>;
}

const overHttp = (client: ApiClient): Keys => ({
  create: (k) => client.post('/keys', k),
  list: async () => (await client.get<{ keys: KeyView[] }>('/keys')).keys,
  revoke: (name) => client.del(`/keys/${encodeURIComponent(name)}`),
});

/** No server owns the folder: this process (holding its lock) writes the database itself. */
async function inFolder<T>(settings: Settings, use: (keys: Keys) => Promise<T>): Promise<T> {
  const opened = await openStore(settings, findAppRoot());
  try {
    const keys = createKeysService({ store: opened.store, clock: systemClock });
    return await use({
      create: async (k) => {
        const { key, secret } = await keys.create(k);
        return { ...key, secret };
      },
      list: () => keys.list(),
      revoke: (name) => keys.revoke(name),
    });
  } finally {
    await opened.close();
  }
}

/**
 * Only the folder's owner writes its database: with a server running, the keys go through its admin routes
 * (the key it was started with, as every command finds it); otherwise through the folder, under its lock.
 */
async function withKeys(name: string, flags: CommonFlags, use: (keys: Keys) => Promise<void>): Promise<void> {
  const settings = settingsFor(flags);
  try {
    await asOwner(
      settings,
      'keys',
      (client) => use(overHttp(client)),
      () => inFolder(settings, use),
    );
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    // fail.ts prints `hint` when the error carries one.
    throw Object.assign(e as object, HINTS[code] ? { hint: HINTS[code](name) } : {});
  }
}

const scopeText = (k: KeyView): string =>
  [
    k.scope.bots.length ? `bots ${k.scope.bots.join(',')}` : '',
    k.scope.jobs.length ? `jobs ${k.scope.jobs.join(',')}` : '',
  ]
    .filter(Boolean)
    .join('; ') || 'all';

async function create(name: string, flags: CreateFlags): Promise<void> {
  await withKeys(name, flags, async (keys) => {
    const { secret, ...key } = await keys.create({
      name,
      role: flags.role,
      bots: ids(flags.bots),
      jobs: ids(flags.jobs),
    });
    if (flags.json) return print(JSON.stringify({ ...key, secret }));
    // Only the secret on stdout, so `KEY=$(lectern keys create …)` works; the rest is for the person.
    print(secret);
    note(
      `${err.green('✔')} created key ${key.name} (${key.role}, sees ${scopeText(key)}): the secret above is shown once and not stored; send it in the X-API-Key header`,
    );
  });
}

async function list(flags: CommonFlags): Promise<void> {
  await withKeys('', flags, async (keys) => {
    const rows = await keys.list();
    if (flags.json) return print(JSON.stringify({ keys: rows }));
    if (rows.length === 0)
      return note(`no keys yet: ${err.bold('lectern keys create NAME --role reader|reviewer|admin')} makes one`);
    const lines = table(
      ['NAME', 'ROLE', 'SEES', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'],
      rows.map((k) => [
        k.name,
        k.role,
        scopeText(k),
        `${k.prefix}…`,
        k.created_at,
        k.last_used_at ?? '-',
        k.revoked_at ?? '-',
      ]),
    );
    for (const line of lines) print(line);
  });
}

async function revoke(name: string, flags: CommonFlags): Promise<void> {
  await withKeys(name, flags, async (keys) => {
    const key = await keys.revoke(name);
    if (flags.json) return print(JSON.stringify(key));
    print(`revoked key ${key.name}: it stops working with its next request`);
  });
}

const EXAMPLES = `
Examples:
  $ lectern keys create desk --role reviewer                 # prints the secret once
  $ lectern keys create bot-widget --role reader --bots 3f2c…  # sees one bot, its documents and chats
  $ lectern keys list --json
  $ lectern keys revoke desk

Roles: reader (read, search, chat), reviewer (also upload, review, finalize, embed, bots),
admin (also delete). SERVICE_API_KEY or <data_dir>/api-key is always admin.
Exit status: 0 done, 1 failed (name taken, no such key), 2 wrong usage or settings.`;

/** `lectern keys create | list | revoke`: named API keys with a role and an optional scope. */
export function addKeysCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('named API keys with a role (reader, reviewer, admin), optionally limited to some bots or jobs')
    .addHelpText('after', EXAMPLES);
  const common = (c: Command) => commonFlags(c, 'data directory whose database holds the keys');
  common(
    keys
      .command('create <name>')
      .description('create a key and print its secret (shown once, stored only as a hash)')
      .requiredOption('--role <role>', `what the key may do: ${ROLES.join(', ')}`)
      .option('--bots <ids>', 'comma-separated bot ids: the key sees only these bots, their documents and chats')
      .option('--jobs <ids>', 'comma-separated job ids: the key sees only these jobs (with --bots: these too)')
      .addHelpText(
        'after',
        examples(
          'lectern keys create desk --role reviewer                    # prints the secret once',
          'lectern keys create widget --role reader --bots 3f2c…,9b1d…  # sees these bots only',
          'lectern keys create intake --role reviewer --jobs 7a0e… --json',
        ),
      ),
  ).action(action('keys create', create));
  common(
    keys
      .command('list')
      .description('every key with its role, scope, prefix and when it was created, last used and revoked')
      .addHelpText(
        'after',
        examples(
          'lectern keys list',
          "lectern keys list --json | jq -r '.keys[] | select(.revoked_at == null) | .name'",
        ),
      ),
  ).action(action('keys list', list));
  common(
    keys
      .command('revoke <name>')
      .description('revoke a key at once (a running server refuses it from its next request)')
      .addHelpText(
        'after',
        examples('lectern keys revoke desk', 'lectern keys revoke widget --data-dir /srv/lectern --json'),
      ),
  ).action(action('keys revoke', revoke));
}
