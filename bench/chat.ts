/**
 * Chat benchmark: for each chat model that can be installed here (SmolLM2-135M-Instruct from its PyPI wheel,
 * stories260K from shared/models) and the extractive provider, answers questions about a real fixture
 * paper through the real server over HTTP, streamed, and reports:
 * - time to first token as the client sees it (the first answer also starts the llama host and loads the model);
 * - tokens per second after the first token;
 * - the share of the whole answer spent on retrieval plus building the prompt, and on reading the prompt
 *   (llama's prefill: first token minus load).
 * The document: tugboat-babelbib (10 pages), finalized with everything approved and embedded with the
 * int8 MiniLM. Questions are built from the headings of chunks spread over the document, so retrieval
 * finds relevant sources and every question reaches the model.
 *
 * Usage: npm run bench:chat -- [--threads N] [--questions 5] [--max-tokens 64] [--json FILE]
 * Without --threads the server's default applies (llm_threads 0: one per core but one, at most 4), as in production.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createModelManager } from '../server/models/manager.js';
import { createGuardedFetch } from '../server/core/net/guarded-fetch.js';
import { DEFAULT_NET_POLICY } from '../server/core/net/defaults.js';
import { embedAndWait, TEST_MODEL } from '../test/helpers/embed-flow.js';
import { fixturesDir, ingest, listAll, startServer } from '../test/helpers/app.js';
import { chatStream, installChatModel, SMOLLM2, STORIES } from '../test/helpers/chat-flow.js';
import { ensureTestModels } from '../test/helpers/test-models.js';
import { ms, num, table } from './lib/format.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    threads: { type: 'string', default: '0' },
    questions: { type: 'string', default: '5' },
    'max-tokens': { type: 'string', default: '64' },
    json: { type: 'string' },
  },
});
const threadsSetting = Number(args.threads);
const questionCount = Number(args.questions);
const maxTokens = Number(args['max-tokens']);
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

interface Run {
  ttftMs: number;
  totalMs: number;
  tokens: number;
  tokensPerS: number;
  retrievalPromptShare: number;
  prefillShare: number;
  promptTokens: number;
  loadMs: number;
  notFound: boolean;
}

await ensureTestModels();
const server = await startServer({ settings: { embedding_model: TEST_MODEL, workers: 2, llm_threads: threadsSetting } });
try {
  const threads: number = (await (await server.call('GET', '/health')).json()).llm.threads;
  // Only imports: the server's own guarded fetch is not needed here.
  const models = createModelManager({ modelsDir: join(server.dataDir, 'models'), net: createGuardedFetch(DEFAULT_NET_POLICY) });
  await models.importFrom(TEST_MODEL, (await ensureTestModels()).minilm.dir);
  for (const id of [SMOLLM2, STORIES] as const) await installChatModel(server.dataDir, id);
  const job = await ingest(server, 'tugboat-babelbib.pdf', readFileSync(join(fixturesDir, 'pdfs/tugboat-babelbib.pdf')));
  await server.call('POST', `/jobs/${job.job_id}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } });
  await embedAndWait(server, job.job_id);
  const chunks = (await listAll(server, `/jobs/${job.job_id}/chunks`)).filter((c) => c.section_path.length > 0);
  const step = Math.max(1, Math.floor(chunks.length / questionCount));
  const questions = Array.from({ length: questionCount }, (_, i) => chunks[(i * step) % chunks.length]!)
    .map((c) => `What does the section "${c.section_path.at(-1)}" say?`);

  async function answer(provider: Record<string, unknown>, question: string): Promise<Run> {
    const { events } = await chatStream(server, { job_id: job.job_id, question, max_tokens: maxTokens, top_k: 5, ...provider });
    const done = events.find((e) => e.event === 'done');
    if (!done) throw new Error(`no answer: ${JSON.stringify(events.at(-1))}`);
    const firstToken = events.find((e) => e.event === 'token')!;
    const u = done.data.usage as Record<string, number>;
    const tokens = u.completion_tokens ?? 0;
    const decodeS = (done.at - firstToken.at) / 1000;
    return {
      ttftMs: firstToken.at,
      totalMs: done.at,
      tokens,
      tokensPerS: tokens > 1 && decodeS > 0 ? (tokens - 1) / decodeS : NaN,
      retrievalPromptShare: ((u.retrieval_ms ?? 0) + (u.prompt_ms ?? 0)) / done.at,
      prefillShare: ((u.first_token_ms ?? 0) - (u.load_ms ?? 0)) / done.at,
      promptTokens: u.prompt_tokens ?? 0,
      loadMs: u.load_ms ?? 0,
      notFound: done.data.not_found,
    };
  }

  const variants = [
    { name: `local ${SMOLLM2}`, provider: { llm_provider: 'local', llm_model: SMOLLM2 } },
    { name: `local ${STORIES} (plumbing only)`, provider: { llm_provider: 'local', llm_model: STORIES } },
    { name: 'extractive (no model)', provider: { llm_provider: 'extractive' } },
  ];
  const results: Record<string, { cold: Run; warm: Run[] }> = {};
  for (const v of variants) {
    // The first answer of a model starts the host (if needed) and loads it: reported apart as "cold".
    const cold = await answer(v.provider, questions[0]!);
    const warm: Run[] = [];
    for (const q of questions) warm.push(await answer(v.provider, q));
    results[v.name] = { cold, warm };
    log(`${v.name}: done (${warm.filter((w) => w.notFound).length} of ${warm.length} not found)`);
  }

  log();
  log(`Chat: tugboat-babelbib, ${questionCount} questions, max_tokens ${maxTokens}, top_k 5, llm_threads ${threads}, ${os.availableParallelism()} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  const rows = Object.entries(results).map(([name, { cold, warm }]) => [
    name,
    ms(cold.ttftMs),
    ms(cold.loadMs),
    ms(median(warm.map((w) => w.ttftMs))),
    num(median(warm.map((w) => w.tokensPerS))),
    num(median(warm.map((w) => w.tokens)), 0),
    num(median(warm.map((w) => w.promptTokens)), 0),
    `${num(100 * median(warm.map((w) => w.retrievalPromptShare)))} %`,
    `${num(100 * median(warm.map((w) => w.prefillShare)))} %`,
    ms(median(warm.map((w) => w.totalMs))),
  ]);
  log(table(
    ['provider / model', 'cold TTFT', 'load', 'TTFT (median)', 'tokens/s', 'tokens', 'prompt tokens', 'retrieval+prompt', 'prefill', 'answer'],
    rows,
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]),
  ));
  if (args.json) writeFileSync(args.json, JSON.stringify({ threads, maxTokens, questions, results }, null, 2));
} finally {
  await server.close();
  rmSync(server.dataDir, { recursive: true, force: true });
}
