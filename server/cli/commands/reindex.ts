import type { Command } from 'commander';
import { action, CliError } from '../fail.js';
import { withConnection, type Connection, type CommonFlags } from '../owner.js';
import { createProgress } from '../progress.js';
import { err, note, out, print } from '../term.js';
import { sleep } from '../../core/sleep.js';

interface ReindexFlags extends CommonFlags {
  model: string;
  provider?: string;
  baseUrl?: string;
}

/** GET /collections/{name}/reindex, as far as the command reads it. */
interface ReindexView {
  reindex_id: string;
  state: 'running' | 'done' | 'cancelled' | 'failed';
  model: string;
  progress: { chunks_done: number; chunks_total: number };
  error: { code: string; message: string } | null;
  collection: { model: string; index_version: string };
}

const POLL_MS = 250;

/** Follows the reindex until it ends; Ctrl-C asks the server to cancel it and waits for that. */
async function follow(c: Connection, path: string, name: string): Promise<ReindexView> {
  const progress = createProgress();
  let cancelling = false;
  c.onInterrupt(() => {
    if (cancelling) return;
    cancelling = true;
    note(`${err.yellow('cancelling:')} the collection keeps its model and index`);
    c.client.del(path).catch(() => undefined);
  });
  try {
    for (;;) {
      const r = await c.client.get<ReindexView>(path);
      const p = r.progress;
      const phase =
        r.state === 'running'
          ? `${cancelling ? 'cancelling' : 'embedding'} ${p.chunks_done}/${p.chunks_total} chunks`
          : r.state === 'done'
            ? `now on ${r.collection.model}`
            : `${r.state}${r.error ? `: ${r.error.message}` : ''}`;
      progress.update(0, {
        label: `${name} → ${r.model}`,
        fraction: r.state === 'done' ? 1 : p.chunks_total ? p.chunks_done / p.chunks_total : 0,
        phase,
        state: r.state === 'running' ? 'active' : r.state === 'done' ? 'done' : 'failed',
      });
      if (r.state !== 'running') return r;
      await sleep(POLL_MS);
    }
  } finally {
    progress.finish();
    c.onInterrupt(null);
  }
}

async function reindex(name: string, flags: ReindexFlags): Promise<void> {
  const path = `/collections/${encodeURIComponent(name)}/reindex`;
  const ended = await withConnection(flags, 'reindex', async (c) => {
    await c.client.post<ReindexView>(path, {
      embedding_model: flags.model,
      ...(flags.provider ? { provider: flags.provider } : {}),
      ...(flags.baseUrl ? { base_url: flags.baseUrl } : {}),
    });
    return follow(c, path, name);
  });
  if (flags.json) print(JSON.stringify(ended));
  if (ended.state === 'done') {
    if (!flags.json) print(`${out.green('✔')} ${name} is embedded with ${ended.collection.model}`);
    return;
  }
  if (ended.state === 'cancelled') {
    if (!flags.json) print(`${out.red('✖')} cancelled: ${name} stays on ${ended.collection.model}`);
    process.exitCode = 130;
    return;
  }
  throw new CliError(ended.error?.code ?? 'REINDEX_FAILED', ended.error?.message ?? `the reindex of ${name} failed`);
}

const EXAMPLES = `
Examples:
  $ lectern reindex library --model all-minilm-l6-v2        # a bar until the collection is on the new model
  $ lectern reindex bot-$BOT --model my-minilm --json       # the reindex's outcome as JSON

Searches keep answering from the old vectors until the new ones are all there, then switch at once.
Ctrl-C cancels the reindex: the collection keeps its model. Exit status: 0 done, 1 failed, 130 cancelled.`;

export function addReindexCommand(program: Command): void {
  program
    .command('reindex')
    .argument('<collection>', 'the collection to re-embed (a job embedded without one is in job-<job_id>)')
    .description('re-embed every chunk of a collection with another embedding model')
    .requiredOption('-m, --model <id>', 'the embedding model (lectern models list shows those installed)')
    .option('--provider <name>', 'local (default), openai or ollama, as for embeds')
    .option('--base-url <url>', 'a remote provider’s address')
    .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
    .option('--data-dir <dir>', 'the data folder (default: from the config, else the user data folder)')
    .option('--json', "print the reindex's outcome as JSON")
    .addHelpText('after', EXAMPLES)
    .action(action('reindex', reindex));
}
