/**
 * Chat benchmark: answers questions about a real fixture paper through the real server over HTTP, streamed,
 * with SmolLM2-135M-Instruct (from its PyPI wheel), in configurations side by side in one run:
 * - before: whole chunks in the prompt, one llama thread (llm_source_text chunks, llm_threads 1);
 * - sentences: only the sentences bearing on the question, one thread;
 * - default: the server's defaults (sentences; every core reads the prompt while the pool is idle).
 * Per configuration: time to first token as the client sees it (the first answer, "cold", also starts the
 * llama host and loads the model), the prompt's tokens and how many were kept read from the previous
 * answer, prefill tokens/s (tokens read / (first token - load)), decode tokens/s, and a grounding check:
 * the share of answer sentences whose content words are mostly (>= 60 %) in a source the answer cites.
 * stories260K and the extractive provider run under the defaults, for the plumbing's own overhead.
 * The document: tugboat-babelbib (10 pages), finalized with everything approved, embedded with the int8
 * MiniLM; questions are built from the headings of chunks spread over it, so every one reaches the model.
 *
 * --models names the chat models measured in each configuration (default SmolLM2-135M): catalog models are
 * put in place from the test weights, and --gguf NAME=FILE,… imports GGUF files of your own first (through
 * POST /models/import, as `lectern models import` does), so that any chat model can be set beside another.
 *
 * Usage: npm run bench:chat -- [--questions 5] [--max-tokens 64] [--only before,sentences,default]
 *        [--models id,id] [--gguf NAME=FILE,NAME=FILE] [--json FILE]
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sentenceStarts } from '../server/core/chunking/sentences.js';
import { contentWords } from '../server/core/chat/words.js';
import { embedAndWait, installTestModel, TEST_MODEL } from '../test/helpers/embed-flow.js';
import { fixturesDir, ingest, listAll, startServer } from '../test/helpers/app.js';
import { chatStream, installChatModel, SMOLLM2, STORIES } from '../test/helpers/chat-flow.js';
import { ensureTestModels } from '../test/helpers/test-models.js';
import { ms, num, table } from './lib/format.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    questions: { type: 'string', default: '5' },
    'max-tokens': { type: 'string', default: '64' },
    only: { type: 'string', default: 'before,sentences,default' },
    models: { type: 'string', default: SMOLLM2 },
    gguf: { type: 'string', default: '' },
    json: { type: 'string' },
  },
});
const questionCount = Number(args.questions);
const maxTokens = Number(args['max-tokens']);
const log = (line = ''): void => void process.stdout.write(`${line}\n`);
const chatModels = args.models.split(',').filter(Boolean);
/** GGUF files of one's own, imported under their names. */
const ggufs = new Map(
  args.gguf
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--gguf takes NAME=FILE, not ${pair}`);
      return [pair.slice(0, at), resolve(pair.slice(at + 1))] as const;
    }),
);

const CONFIGS = [
  { name: 'before', label: 'whole chunks, 1 thread', settings: { llm_threads: 1, llm_source_text: 'chunks' } },
  { name: 'sentences', label: 'sentences, 1 thread', settings: { llm_threads: 1, llm_source_text: 'sentences' } },
  { name: 'default', label: 'sentences, all cores read while idle (defaults)', settings: {} },
] as const;

interface Run {
  ttftMs: number;
  totalMs: number;
  tokens: number;
  tokensPerS: number;
  promptTokens: number;
  cachedTokens: number;
  prefillTokensPerS: number;
  prefillThreads: number;
  loadMs: number;
  notFound: boolean;
  /** Answer sentences, and those supported by a cited source. */
  sentences: number;
  supported: number;
}

/** Sentences of an answer whose content words are mostly (>= 60 %) in the text of a source it cites. */
function grounding(answer: string, cited: string[]): { sentences: number; supported: number } {
  const clean = answer.replace(/\s*\[[^\]\n]*\]/g, '');
  const starts = sentenceStarts(clean);
  const have = new Set(cited.flatMap((t) => contentWords(t)));
  let sentences = 0;
  let supported = 0;
  starts.forEach((start, i) => {
    const words = contentWords(clean.slice(start, starts[i + 1] ?? clean.length));
    if (words.length < 2) return;
    sentences += 1;
    if (words.filter((w) => have.has(w)).length / words.length >= 0.6) supported += 1;
  });
  return { sentences, supported };
}

await ensureTestModels();
const paper = readFileSync(join(fixturesDir, 'pdfs/tugboat-babelbib.pdf'));
const results: Record<string, { cold: Run; warm: Run[] }> = {};
let questions: string[] = [];

for (const config of CONFIGS.filter((c) => args.only.split(',').includes(c.name))) {
  const server = await startServer({
    settings: {
      embedding_model: TEST_MODEL,
      workers: 2,
      document_roots: [...new Set([...ggufs.values()].map((f) => dirname(f)))],
      ...config.settings,
    },
  });
  try {
    await installTestModel(server.dataDir);
    for (const id of [SMOLLM2, STORIES] as const) await installChatModel(server.dataDir, id);
    for (const [name, path] of ggufs) {
      const imported = await server.call('POST', '/models/import', { json: { name, path } });
      if (imported.status !== 200) throw new Error(`importing ${path} as ${name}: ${await imported.text()}`);
    }
    const job = await ingest(server, 'tugboat-babelbib.pdf', paper);
    await server.call('POST', `/jobs/${job.job_id}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } });
    await embedAndWait(server, job.job_id);
    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    const textOf = new Map(chunks.map((c) => [c.chunk_id as string, c.text as string]));
    const headed = chunks.filter((c) => c.section_path.length > 0);
    const step = Math.max(1, Math.floor(headed.length / (questionCount + 1)));
    // One question more than measured: the cold answer's own, as the host keeps what it read and a
    // repeated question would be read from its cache.
    questions = Array.from({ length: questionCount + 1 }, (_, i) => headed[(i * step) % headed.length]!).map(
      (c) => `What does the section "${c.section_path.at(-1)}" say?`,
    );

    const answer = async (provider: Record<string, unknown>, question: string): Promise<Run> => {
      const { events } = await chatStream(server, {
        job_id: job.job_id,
        question,
        max_tokens: maxTokens,
        top_k: 5,
        ...provider,
      });
      const done = events.find((e) => e.event === 'done');
      if (!done) throw new Error(`no answer: ${JSON.stringify(events.at(-1))}`);
      const firstToken = events.find((e) => e.event === 'token')!;
      const u = done.data.usage as Record<string, number>;
      const tokens = u.completion_tokens ?? 0;
      const decodeS = (done.at - firstToken.at) / 1000;
      const read = (u.prompt_tokens ?? 0) - (u.cached_prompt_tokens ?? 0);
      const prefillS = ((u.first_token_ms ?? 0) - (u.load_ms ?? 0)) / 1000;
      const cited = (done.data.citations as { chunk_id: string }[]).map((c) => textOf.get(c.chunk_id) ?? '');
      return {
        ttftMs: firstToken.at,
        totalMs: done.at,
        tokens,
        tokensPerS: tokens > 1 && decodeS > 0 ? (tokens - 1) / decodeS : NaN,
        promptTokens: u.prompt_tokens ?? 0,
        cachedTokens: u.cached_prompt_tokens ?? 0,
        prefillTokensPerS: read > 0 && prefillS > 0 ? read / prefillS : NaN,
        prefillThreads: u.prefill_threads ?? NaN,
        loadMs: u.load_ms ?? 0,
        notFound: done.data.not_found as boolean,
        ...grounding(done.data.not_found ? '' : (done.data.answer as string), cited),
      };
    };

    const variants: { name: string; provider: Record<string, unknown> }[] = chatModels.map((id) => ({
      name: `${config.label}: ${id}`,
      provider: { llm_provider: 'local', llm_model: id },
    }));
    if (config.name === 'default') {
      variants.push({
        name: `${config.label}: ${STORIES} (plumbing only)`,
        provider: { llm_provider: 'local', llm_model: STORIES },
      });
      variants.push({ name: 'extractive (no model)', provider: { llm_provider: 'extractive' } });
    }
    for (const v of variants) {
      // The first answer of a model starts the host (if needed) and loads it: reported apart as "cold".
      const cold = await answer(v.provider, questions[0]!);
      const warm: Run[] = [];
      for (const q of questions.slice(1)) warm.push(await answer(v.provider, q));
      results[v.name] = { cold, warm };
      log(`${v.name}: done (${warm.filter((w) => w.notFound).length} of ${warm.length} not found)`);
    }
  } finally {
    await server.close();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

log();
log(
  `Chat: tugboat-babelbib, ${questionCount} questions, max_tokens ${maxTokens}, top_k 5, ${os.availableParallelism()} cores, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
const med = (runs: Run[], f: (r: Run) => number) => median(runs.map(f));
const rows = Object.entries(results).map(([name, { cold, warm }]) => {
  const sentences = warm.reduce((n, w) => n + w.sentences, 0);
  const supported = warm.reduce((n, w) => n + w.supported, 0);
  return [
    name,
    ms(cold.ttftMs),
    ms(med(warm, (w) => w.ttftMs)),
    num(
      med(warm, (w) => w.promptTokens),
      0,
    ),
    num(
      med(warm, (w) => w.cachedTokens),
      0,
    ),
    num(
      med(warm, (w) => w.prefillThreads),
      0,
    ),
    num(
      med(warm, (w) => w.prefillTokensPerS),
      0,
    ),
    num(med(warm, (w) => w.tokensPerS)),
    num(
      med(warm, (w) => w.tokens),
      0,
    ),
    sentences ? `${supported}/${sentences} (${num((100 * supported) / sentences, 0)} %)` : '-',
    ms(med(warm, (w) => w.totalMs)),
  ];
});
log(
  table(
    [
      'configuration: model',
      'cold TTFT',
      'TTFT (median)',
      'prompt tokens',
      'kept read',
      'prefill threads',
      'prefill tok/s',
      'decode tok/s',
      'tokens',
      'grounded sentences',
      'answer',
    ],
    rows,
    new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
  ),
);
if (args.json) writeFileSync(args.json, JSON.stringify({ maxTokens, questions, results }, null, 2));
