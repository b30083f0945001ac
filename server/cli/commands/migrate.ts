import { resolve } from 'node:path';
import type { Command } from 'commander';
import { findAppRoot } from '../../store/app-paths.js';
import type { TableReport } from '../../store/migrate/copy-tables.js';
import { migrateLibrary, type MigrateReport } from '../../store/migrate/migrate-library.js';
import { action, usage } from '../fail.js';
import { examples } from '../help-text.js';
import { settingsFor, type CommonFlags } from '../owner.js';
import { err, note, print, table } from '../term.js';

interface MigrateFlags extends CommonFlags {
  fromDataDir?: string;
  toDataDir?: string;
  databaseUrl?: string;
  objectStoreUrl?: string;
}

/** The first 16 hex digits: enough for a person to compare, the whole sum is in --json. */
const short = (checksum: string): string => checksum.slice(0, 16);

function printReport(r: MigrateReport): void {
  const rows = r.tables.map((t: TableReport) => [
    t.table,
    String(t.copied),
    String(t.skipped),
    short(t.source.checksum),
    short(t.target.checksum),
    t.source.checksum === t.target.checksum ? 'agree' : err.red('DIFFER'),
  ]);
  for (const line of table(['TABLE', 'COPIED', 'SKIPPED', 'SOURCE SHA256', 'TARGET SHA256', ''], rows)) print(line);
  for (const v of r.vectors) {
    print(
      `vectors ${v.collection}: ${v.copied} copied, ${v.skipped} skipped${v.absent ? `, ${v.absent} rows without a vector in the source (found by keyword until embedded again)` : ''}`,
    );
  }
  print(`files: ${r.files.copied} copied (${r.files.bytes} bytes), ${r.files.skipped} skipped`);
  if (r.chat_key === 'copied') print('chat key: copied (sealed chats stay readable)');
  if (r.chat_key === 'differs')
    note(
      `${err.yellow('warning:')} source and target seal chats with different keys: the moved sealed chats need the source's chat.key`,
    );
}

async function migrate(flags: MigrateFlags): Promise<void> {
  if (Boolean(flags.fromDataDir) === Boolean(flags.toDataDir))
    throw usage('give one of --from-data-dir DIR (desktop → team server) or --to-data-dir DIR (team server → desktop)');
  const settings = settingsFor(flags, { database_url: flags.databaseUrl, object_store_url: flags.objectStoreUrl });
  const report = await migrateLibrary({
    direction: flags.fromDataDir ? 'to-team' : 'to-desktop',
    desktopDir: resolve((flags.fromDataDir ?? flags.toDataDir)!),
    settings,
    appRoot: findAppRoot(),
    onTable: flags.json ? undefined : (t) => note(err.dim(`${t.table}: ${t.copied} copied, ${t.skipped} skipped`)),
  });
  if (flags.json) print(JSON.stringify(report));
  else printReport(report);
  if (!report.agree) {
    note(
      `${err.red('lectern migrate:')} source and target differ in ${report.tables
        .filter((t) => t.source.checksum !== t.target.checksum)
        .map((t) => t.table)
        .join(', ')} (rows the target held before with other content are left as they were)`,
    );
    process.exitCode = 1;
  } else if (!flags.json) note(`${err.green('✔')} source and target agree on every table`);
}

/** `lectern migrate`: a library between a desktop data folder and a team server's PostgreSQL, either way. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description(
      "copy a library between a desktop data folder and a team server's database (ids unchanged; a second run copies only what is new)",
    )
    .option(
      '--from-data-dir <dir>',
      "a desktop data folder to copy into the team server (this node's database; files into its --data-dir)",
    )
    .option('--to-data-dir <dir>', 'a new or existing desktop data folder to copy the team server into')
    .option(
      '--database-url <url>',
      "the team server's PostgreSQL (default: LECTERN_DATABASE_URL, else database_url in the config)",
    )
    .option(
      '--object-store-url <url>',
      "the team server's S3 bucket of files (s3://bucket/prefix; default: LECTERN_OBJECT_STORE_URL, else the --data-dir folder)",
    )
    .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
    .option('--data-dir <dir>', "this node's data folder, where the team server keeps its files")
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `${examples(
        'lectern migrate --from-data-dir ~/.config/Lectern --database-url postgres://lectern@db:5432/lectern --data-dir /srv/lectern',
        'lectern migrate --from-data-dir ./desk --data-dir /srv/lectern   # database from LECTERN_DATABASE_URL; again: only what is new',
        'lectern migrate --to-data-dir ~/lectern-copy -c team.yaml --json | jq .agree',
      )}

The desktop folder must not be in use (close the desktop app or its \`lectern serve\`); its database is
brought to this version's schema first, as at start-up. Each table is reported with the rows copied and
skipped and a sha256 of its rows on both sides. Exit status: 0 done and agreeing, 1 failed or differing,
2 wrong usage or settings.`,
    )
    .action(action('migrate', migrate));
}
