import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { action, CliError } from '../fail.js';
import { multilingualHint } from '../language-hint.js';
import { withConnection, type Connection, type CommonFlags } from '../owner.js';
import { createProgress, type BarState } from '../progress.js';
import { err, note, out, print } from '../term.js';
import type { BotView } from './bot.js';
import { sleep } from '../../core/sleep.js';

interface AddDocFlags extends CommonFlags {
  review?: boolean;
}

/** One document the bot was given: its job, or why it has none. */
interface Added {
  label: string;
  job_id: string | null;
  status: string;
  error?: { code: string; message: string };
}

/** The fields of GET /jobs/{id} that tell how far a document is. */
interface JobView {
  job_id: string;
  status: string;
  source_file: string;
  progress: { pages_done: number; total_pages: number };
  error: { code: string; message: string } | null;
  index?: { progress: { chunks_embedded: number; chunks_total: number } } | null;
  detected_language?: { code: string; confidence: number } | null;
}

interface Outcome extends Added {
  outcome: 'searchable' | 'ready_for_review' | 'failed' | 'skipped' | 'waiting';
  message?: string;
  /** The language the document was read in (GET /jobs/{id}: detected_language), once it is done. */
  language?: { code: string; confidence: number } | null;
}

const isUrl = (s: string): boolean => /^https?:\/\//i.test(s);

/** A model the bot needs, installed where the data is (else the install hint, before anything is added). */
export async function requireModel(c: Connection, id: string, what: string): Promise<void> {
  const { models } = await c.client.get<{ models: { id: string; installed: boolean }[] }>('/models');
  const model = models.find((m) => m.id === id);
  if (model && !model.installed)
    throw new CliError('MODEL_NOT_INSTALLED', `${what} ${id} is not installed`, undefined, { id });
}

async function submit(c: Connection, botId: string, target: string, review: boolean): Promise<Added[]> {
  const bot = `/bots/${encodeURIComponent(botId)}`;
  if (isUrl(target)) {
    const r = await c.client.post<{ documents: Added[] }>(`${bot}/documents/link`, { links: [target], review });
    // The address without its scheme: what a person recognises, and shorter on a bar.
    return r.documents.map((d) => ({ ...d, label: target.replace(/^https?:\/\//i, '') }));
  }
  const path = resolve(target);
  if (!existsSync(path)) throw new CliError('FILE_NOT_FOUND', `no such file or folder: ${path}`);
  const r = await c.client.post<{
    job_id?: string;
    status: string;
    documents?: (Added & { source: string })[];
    truncated?: boolean;
  }>(`${bot}/documents/path`, { path, review });
  if (!r.documents) return [{ label: basename(path), job_id: r.job_id ?? null, status: r.status }];
  if (r.truncated)
    note(`${err.yellow('warning:')} the folder holds more documents than max_folder_files; the rest were not added`);
  return r.documents.map((d) => ({
    ...d,
    label: d.source.startsWith(path) ? d.source.slice(path.length + 1) || basename(d.source) : d.source,
  }));
}

/** Where a job is, as a bar: reading is most of the way, then finalizing, then embedding. */
function barOf(job: JobView, review: boolean): { fraction: number; phase: string } {
  const pages = job.progress.total_pages ? job.progress.pages_done / job.progress.total_pages : 0;
  const read = review ? 1 : 0.7;
  switch (job.status) {
    case 'queued':
      return { fraction: 0, phase: 'queued' };
    case 'processing':
      return {
        fraction: 0.02 + (read - 0.02) * pages,
        phase: job.progress.total_pages
          ? `reading p. ${job.progress.pages_done}/${job.progress.total_pages}`
          : 'reading',
      };
    case 'ready_for_review':
    case 'finalizing':
      return { fraction: read + 0.05, phase: 'finalizing' };
    case 'finalized':
      return { fraction: 0.8, phase: 'embedding' };
    case 'embedding': {
      const p = job.index?.progress;
      return {
        fraction: 0.8 + 0.2 * (p?.chunks_total ? p.chunks_embedded / p.chunks_total : 0),
        phase: p?.chunks_total ? `embedding ${p.chunks_embedded}/${p.chunks_total} chunks` : 'embedding',
      };
    }
    default:
      return { fraction: 1, phase: job.status };
  }
}

/** Follows every job until it is searchable (or ready for review), failed, or the person stops waiting. */
async function follow(
  c: Connection,
  docs: Added[],
  review: boolean,
  signal: AbortSignal,
  deskUrl: string,
): Promise<Outcome[]> {
  const progress = createProgress();
  // In a folder, a file that is no document is skipped, not a failure; a document that cannot be added is.
  const outcomes: Outcome[] = docs.map((d) => ({
    ...d,
    outcome: d.job_id
      ? 'waiting'
      : d.error?.code === 'UNSUPPORTED_MEDIA_TYPE' && docs.length > 1
        ? 'skipped'
        : 'failed',
    message: d.error?.message,
  }));
  outcomes.forEach((o, i) => {
    const phase =
      o.outcome === 'skipped'
        ? `skipped: ${o.message}`
        : o.outcome === 'failed'
          ? `not added: ${o.message ?? o.status}`
          : o.status === 'duplicate'
            ? 'already in the bot'
            : 'queued';
    progress.update(i, {
      label: o.label,
      fraction: o.outcome === 'waiting' ? 0 : 1,
      phase,
      state: o.outcome === 'waiting' ? 'active' : o.outcome === 'skipped' ? 'done' : 'failed',
    });
  });
  const open = () => outcomes.map((o, i) => [o, i] as const).filter(([o]) => o.outcome === 'waiting');
  while (open().length && !signal.aborted) {
    const batch = open().slice(0, 8);
    await Promise.all(
      batch.map(async ([o, i]) => {
        const job = await c.client.get<JobView>(`/jobs/${encodeURIComponent(o.job_id!)}`);
        const bar: BarState = { label: o.label, ...barOf(job, review), state: 'active' };
        const failure =
          job.status === 'failed' || job.status === 'cancelled' || (job.status === 'finalized' && job.error);
        if (failure) {
          Object.assign(o, {
            outcome: 'failed',
            message: job.error?.message ?? job.status,
            error: job.error ?? undefined,
          });
          Object.assign(bar, { state: 'failed', phase: `failed: ${job.error?.message ?? job.status}` });
        } else if (review ? job.status === 'ready_for_review' || job.status === 'indexed' : job.status === 'indexed') {
          const phase =
            job.status === 'indexed' ? 'searchable' : `ready for review: ${deskUrl}/#/jobs/${job.job_id}/review`;
          Object.assign(o, {
            outcome: job.status === 'indexed' ? 'searchable' : 'ready_for_review',
            language: job.detected_language ?? null,
          });
          Object.assign(bar, { state: 'done', fraction: 1, phase });
        }
        progress.update(i, bar);
      }),
    );
    if (open().length) await sleep(250, signal);
  }
  progress.finish();
  return outcomes;
}

async function addDoc(botId: string, target: string, flags: AddDocFlags): Promise<void> {
  const stop = new AbortController();
  const { outcomes, hint } = await withConnection(
    flags,
    'add-doc',
    async (c) => {
      const bot = await c.client.get<BotView>(`/bots/${encodeURIComponent(botId)}`);
      await requireModel(c, bot.embedding_model, `the bot's embedding model`);
      const docs = await submit(c, botId, target, flags.review ?? false);
      c.onInterrupt(() => stop.abort());
      const desk =
        c.serverUrl ?? `http://${c.settings.host === '0.0.0.0' ? '127.0.0.1' : c.settings.host}:${c.settings.port}`;
      const result = await follow(c, docs, flags.review ?? false, stop.signal, desk);
      // Said once the documents are done, beside the summary (not on a --json run, which prints JSON only).
      const hint = stop.signal.aborted || flags.json ? null : await multilingualHint(c, bot, result);
      if (stop.signal.aborted) {
        note(
          c.mode === 'server'
            ? `${err.yellow('stopped waiting:')} the server goes on with the documents`
            : `${err.yellow('stopped:')} the documents go on with the next lectern command or \`lectern serve\``,
        );
      } else if (flags.review && !flags.json && result.some((o) => o.outcome === 'ready_for_review')) {
        note(
          c.mode === 'server'
            ? `Review them in the desk at ${desk}/ and finalize: they then become searchable.`
            : `Review them in the desk: run ${err.bold('lectern serve')} and open ${desk}/; finalized documents become searchable.`,
        );
      }
      return { outcomes: result, hint };
    },
    { readsDocuments: true },
  );
  if (flags.json)
    print(
      JSON.stringify({
        bot_id: botId,
        documents: outcomes.map(({ label, job_id, status, outcome, error }) => ({
          source: label,
          job_id,
          status,
          outcome,
          ...(error ? { error } : {}),
        })),
      }),
    );
  const failed = outcomes.filter((o) => o.outcome === 'failed');
  const skipped = outcomes.filter((o) => o.outcome === 'skipped');
  const done = outcomes.filter((o) => o.outcome === 'searchable' || o.outcome === 'ready_for_review');
  if (!flags.json) {
    const word = flags.review ? 'ready for review' : 'searchable';
    const total = outcomes.length - skipped.length;
    const extra = [
      failed.length ? `${failed.length} failed` : '',
      skipped.length ? `${skipped.length} skipped (not documents)` : '',
    ]
      .filter(Boolean)
      .join(', ');
    print(
      `${done.length === total ? out.green('✔') : out.red('✖')} ${done.length} of ${total} document${total === 1 ? '' : 's'} ${word}${extra ? `; ${extra}` : ''}`,
    );
  }
  if (hint) note(hint);
  if (stop.signal.aborted) process.exitCode = 130;
  else if (failed.length) {
    const first = failed[0]!;
    throw new CliError(
      first.error?.code ?? 'DOCUMENT_FAILED',
      `${failed.length === 1 ? '' : `${failed.length} documents failed; first: `}${first.label}: ${first.message ?? first.status}`,
    );
  }
}

const EXAMPLES = `
Examples:
  $ lectern add-doc $BOT ~/manuals/pump.pdf             # a file: a bar until it is searchable
  $ lectern add-doc $BOT ~/manuals                      # a folder: every document in it, recursively
  $ lectern add-doc $BOT https://example.org/guide.html # a web page (or a PDF, DOCX… by URL)
  $ lectern add-doc $BOT report.pdf --review            # waits for a person to review it in the desk
  $ lectern add-doc $BOT ~/manuals --json               # each document's job and outcome

Files and folders must be inside document_roots (default: your home folder). Exit status: 0 all
searchable, 1 one or more failed (each says why), 2 wrong usage.`;

export function addAddDocCommand(program: Command): void {
  program
    .command('add-doc')
    .argument('<bot_id>', 'the bot to add to (lectern bot list shows the ids)')
    .argument('<path_or_url>', 'a file, a folder (every document in it) or an http(s) URL')
    .description("add a file, a folder or a web page to a bot's knowledge, with a progress bar per document")
    .option('--review', 'stop at ready for review: a person reviews and finalizes it in the desk first')
    .option('-c, --config <path>', 'YAML configuration file (default: ./lectern.yaml when present)')
    .option('--data-dir <dir>', 'the data folder (default: from the config, else the user data folder)')
    .option('--json', "print each document's outcome as JSON")
    .addHelpText('after', EXAMPLES)
    .action(action('add-doc', addDoc));
}
