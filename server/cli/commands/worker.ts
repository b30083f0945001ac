import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { action, CliError } from '../fail.js';
import { settingsFor, type CommonFlags } from '../owner.js';
import { err, note } from '../term.js';
import { stopOnSignals } from '../stop-on-signals.js';

interface WorkerFlags extends CommonFlags {
  databaseUrl?: string;
  objectStoreUrl?: string;
  workers?: string;
}

/** `lectern worker`: a team server's node that only reads the documents and embeds the jobs its API nodes queue. */
async function worker(flags: WorkerFlags): Promise<void> {
  const settings = settingsFor(flags, {
    workers: flags.workers,
    database_url: flags.databaseUrl,
    object_store_url: flags.objectStoreUrl,
  });
  if (!settings.database_url) {
    throw new CliError(
      'USAGE',
      'a worker reads the team queue in a database, and none is set',
      'give --database-url postgres://… (or LECTERN_DATABASE_URL)',
    );
  }
  const { startWorkerNode } = await import('../../worker-node.js');
  const node = await startWorkerNode({ settings, workerFile: fileURLToPath(new URL('./worker.js', import.meta.url)) });
  note(
    `${err.green('lectern worker:')} ${node.workerId} reading documents and embedding jobs from the team queue, files in ${settings.object_store_url || settings.data_dir}. Ctrl-C stops.`,
  );
  stopOnSignals(node);
}

const EXAMPLES = `
Examples:
  $ lectern worker --database-url postgres://lectern@db:5432/lectern --data-dir /mnt/lectern
  $ lectern worker --workers 4                     # the database from LECTERN_DATABASE_URL or lectern.yaml
  $ lectern worker --database-url postgres://lectern@db/lectern --object-store-url s3://lectern/team

A worker has no HTTP: it claims documents from the team's queue in the database, reads them with its
worker threads from <data_dir>/files (the folder every node of the team mounts), or from the bucket of
--object-store-url (a copy in <data_dir>/tmp while it reads), and saves what it read in the database; it
also embeds the jobs queued for embedding, with the models in <data_dir>/models. Start as many as you
like, on as many machines; one that dies gives its work to another after task_lease_ms. Stopping it
(Ctrl-C) gives its work back to the queue at once.`;

export function addWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description("read documents and embed jobs from a team server's queue (no HTTP); needs a database")
    .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
    .option('--data-dir <dir>', 'the folder every node shares: uploads are read from its files/')
    .option('--database-url <url>', "the team server's PostgreSQL (postgres://…); or LECTERN_DATABASE_URL")
    .option(
      '--object-store-url <url>',
      "the team's S3 bucket of originals (s3://bucket/prefix; AWS_* variables); or LECTERN_OBJECT_STORE_URL",
    )
    .option('--workers <n>', 'worker threads, documents read at once (0 = one per core)')
    .addHelpText('after', EXAMPLES)
    .action(action('worker', worker));
}
