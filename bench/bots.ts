/**
 * Bots benchmark, through the real server over HTTP:
 * - the six fixture PDFs added to one bot by path (a folder), and the time until every one is searchable
 *   (read, finalized and embedded into the bot's collection: ingest_status success);
 * - then, with the default local chat model (SmolLM2-135M-Instruct), time to first token and tokens per
 *   second of plain streamed answers, and of schema (JSON) answers, which are not streamed (their tokens are
 *   timed by the server as they are decoded: usage first_token_ms and decode_ms).
 * The reference beside it: the same six PDFs through the jobs API (upload, ready_for_review) in the same
 * run, i.e. what being a bot's document adds on top of ingest (finalize and embedding).
 *
 * Usage: npm run bench:bots -- [--questions 4] [--json FILE]
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fixturesDir, json, startServer, tempDir, type TestServer } from '../test/helpers/app.js';
import { installChatModel, SMOLLM2 } from '../test/helpers/chat-flow.js';
import { installTestModel, TEST_MODEL } from '../test/helpers/embed-flow.js';
import { sseRequest } from '../test/helpers/sse.js';
import { ms, num, table } from './lib/format.js';
import { median } from './lib/stats.js';

const { values: args } = parseArgs({
  options: { questions: { type: 'string', default: '4' }, json: { type: 'string' } },
});
const log = (line = ''): void => void process.stdout.write(`${line}\n`);
const manifest = JSON.parse(readFileSync(join(fixturesDir, 'manifest.json'), 'utf8')) as {
  documents: { id: string; file: string }[];
};
const pdfs = manifest.documents.filter((d) => d.file.startsWith('pdfs/'));

async function until(server: TestServer, jobIds: string[], done: (j: Record<string, any>) => boolean): Promise<void> {
  const left = new Set(jobIds);
  const end = Date.now() + 600_000;
  while (left.size) {
    for (const id of [...left]) {
      const j = await json(await server.call('GET', `/jobs/${id}`));
      if (j.status === 'failed') throw new Error(`${id} failed: ${JSON.stringify(j.error)}`);
      if (done(j)) left.delete(id);
    }
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const root = tempDir('lectern-bench-bots-');
const folder = join(root, 'fixtures');
mkdirSync(folder);
for (const d of pdfs) symlinkSync(join(fixturesDir, d.file), join(folder, `${d.id}.pdf`));
const dataDir = tempDir();
await Promise.all([installTestModel(dataDir), installChatModel(dataDir, SMOLLM2)]);
const server = await startServer({
  dataDir,
  settings: {
    embedding_model: TEST_MODEL,
    chat_model: SMOLLM2,
    document_roots: [root, fixturesDir],
    warm_up_rounds: 6,
  },
});
try {
  // The reference first: the same PDFs as plain jobs, until ready for review.
  let t = performance.now();
  const jobIds: string[] = [];
  for (const d of pdfs) {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(join(fixturesDir, d.file))]), `${d.id}.pdf`);
    jobIds.push(
      (
        await json(
          await fetch(`${server.url}/jobs`, { method: 'POST', headers: { 'x-api-key': server.key }, body: form }),
        )
      ).job_id,
    );
  }
  await until(server, jobIds, (j) => j.status === 'ready_for_review');
  const ingestMs = performance.now() - t;

  const botId = (
    await json(
      await server.call('POST', '/bots', {
        json: { prompt_template: 'You answer questions about these manuals and papers.' },
      }),
    )
  ).bot_id;
  t = performance.now();
  const added = await json(await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: folder } }));
  await until(server, added.job_ids, (j) => j.ingest_status === 'success');
  const searchableMs = performance.now() - t;

  const questions = [
    'What is the zoo package for?',
    'How are tied survival times handled?',
    'How does babelbib handle languages in bibliographies?',
    'What does the booktabs package recommend for rules in tables?',
    'What environments does amsmath provide for aligned equations?',
    'What is a beamer frame?',
  ].slice(0, Number(args.questions));
  const chatId = (await json(await server.call('POST', `/bots/${botId}/chats`))).chat_id;
  const url = `${server.url}/bots/${botId}/chats/${chatId}`;
  const headers = { 'x-api-key': server.key, 'content-type': 'application/json' };
  const plain: { ttft: number; tps: number; total: number; tokens: number }[] = [];
  // The first answer starts the llama host and loads the model: reported apart.
  const coldStart = performance.now();
  await sseRequest(url, { method: 'POST', headers, body: JSON.stringify({ query: questions[0], stream: true }) });
  const coldMs = performance.now() - coldStart;
  for (const q of questions) {
    const { events } = await sseRequest(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: q, stream: true }),
    });
    const first = events.find((e) => e.event === 'token');
    const done = events.find((e) => e.event === 'done');
    if (!first || !done) throw new Error(`no answer to ${q}: ${JSON.stringify(events.at(-1))}`);
    const tokens = Number(done.data.usage?.completion_tokens ?? 0) || events.filter((e) => e.event === 'token').length;
    const decodeS = (done.at - first.at) / 1000;
    plain.push({
      ttft: first.at,
      tps: tokens > 1 && decodeS > 0 ? (tokens - 1) / decodeS : NaN,
      total: done.at,
      tokens,
    });
  }
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string', maxLength: 300 }, confident: { type: 'boolean' } },
    required: ['answer', 'confident'],
  };
  // Schema answers are not streamed, but the server times their tokens as they are decoded (usage
  // first_token_ms, decode_ms): time to first token and tokens/s come from there, over all attempts.
  const schemaRuns: {
    total: number;
    attempts: number;
    ok: boolean;
    ttft?: number;
    tps?: number;
    tokens?: number;
    error?: string;
  }[] = [];
  for (const q of questions) {
    const s = performance.now();
    const res = await server.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query: q, schema } });
    const body = await json(res);
    const u = (body.usage ?? {}) as Record<string, number>;
    const attempts = Number(u.attempts ?? body.error?.details?.attempts ?? 1);
    const total = performance.now() - s;
    // Each attempt's first token starts its decoding span: the tokens after it are what decode_ms measured.
    const decoded = (u.completion_tokens ?? 0) - attempts;
    // TTFT as the client would have seen it, like the plain row's: the whole request less what the server
    // spent after the first token.
    schemaRuns.push({
      total,
      attempts,
      ok: res.status === 200,
      ...(res.status === 200
        ? {
            ttft: total - ((u.generation_ms ?? 0) - (u.first_token_ms ?? 0)),
            tokens: u.completion_tokens,
            tps: decoded > 0 && (u.decode_ms ?? 0) > 0 ? decoded / (u.decode_ms! / 1000) : NaN,
          }
        : {}),
      ...(res.status === 200
        ? {}
        : {
            error: `${res.status} ${body.error?.code}: ${JSON.stringify(body.error?.details?.errors ?? body.error?.message).slice(0, 200)}`,
          }),
    });
  }

  const okRuns = schemaRuns.filter((r) => r.ok);
  log();
  log(
    `Bots: ${pdfs.length} fixture PDFs, ${questions.length} questions, ${os.availableParallelism()} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}, ${new Date().toISOString()}`,
  );
  log(
    table(
      ['step', 'time'],
      [
        ['six PDFs as jobs, until ready for review (reference)', ms(ingestMs)],
        ['six PDFs added to a bot, until all searchable', ms(searchableMs)],
        ['  of which finalize + embedding (difference)', ms(searchableMs - ingestMs)],
      ],
      new Set([1]),
    ),
  );
  log();
  log(
    table(
      ['answer (SmolLM2-135M, local)', 'first (cold)', 'TTFT median', 'tokens/s', 'tokens', 'total median', 'valid'],
      [
        [
          'plain, streamed',
          ms(coldMs),
          ms(median(plain.map((p) => p.ttft))),
          num(median(plain.map((p) => p.tps))),
          num(median(plain.map((p) => p.tokens)), 0),
          ms(median(plain.map((p) => p.total))),
          '-',
        ],
        [
          'schema (JSON), whole',
          '-',
          ms(median(okRuns.map((r) => r.ttft!))),
          num(median(okRuns.map((r) => r.tps!))),
          num(median(okRuns.map((r) => r.tokens!)), 0),
          ms(median(schemaRuns.map((r) => r.total))),
          `${okRuns.length}/${schemaRuns.length}`,
        ],
      ],
      new Set([1, 2, 3, 4, 5, 6]),
    ),
  );
  for (const r of schemaRuns.filter((x) => x.error)) log(`schema answer refused: ${r.error}`);
  if (args.json)
    writeFileSync(args.json, JSON.stringify({ ingestMs, searchableMs, coldMs, plain, schemaRuns }, null, 2));
} finally {
  await server.close();
}
