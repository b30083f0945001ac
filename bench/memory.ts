/**
 * Memory benchmark: the peak resident memory of the server (worker threads included) and its llama host
 * while a local answer is being written and two documents are read at once: a generated 500-page PDF and
 * a scanned fixture page that goes through OCR, both uploaded as the answer starts. The server is the real
 * `lectern serve` in a process of its own (two worker threads, its default embedding model replaced by
 * the int8 MiniLM the tests use); the llama host is its child. Sampled every 50 ms from /proc (VmRSS of
 * both processes, summed), beside each process's own peak (VmHWM).
 *
 * Usage: npm run bench:memory -- [--pages 500] [--max-tokens 256]
 */
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { embedAndWait, installTestModel, TEST_MODEL } from '../test/helpers/embed-flow.js';
import { fixturesDir, ingest, tempDir, type TestServer } from '../test/helpers/app.js';
import { startChildServer } from '../test/helpers/child-server.js';
import { chatStream, installChatModel, SMOLLM2 } from '../test/helpers/chat-flow.js';
import { makeLongPdf } from '../test/helpers/make-pdf.js';
import { descendants, procStatusKb } from './lib/proc.js';
import { mib, ms } from './lib/format.js';

const { values: args } = parseArgs({
  options: { pages: { type: 'string', default: '500' }, 'max-tokens': { type: 'string', default: '256' } },
});
const GOAL_MIB = 2048;
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

const dataDir = tempDir('lectern-bench-memory-');
await installTestModel(dataDir);
await installChatModel(dataDir, SMOLLM2);
const child = await startChildServer({ dataDir, env: { LECTERN_EMBEDDING_MODEL: TEST_MODEL } });
// The helpers below take the in-process server's type; they use only its HTTP side, which the child has.
const server = child as unknown as TestServer;
try {
  const paper = await ingest(
    server,
    'tugboat-babelbib.pdf',
    readFileSync(join(fixturesDir, 'pdfs/tugboat-babelbib.pdf')),
  );
  await server.call('POST', `/jobs/${paper.job_id}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } });
  await embedAndWait(server, paper.job_id);
  const long = await makeLongPdf(Number(args.pages));
  const scan = readFileSync(join(fixturesDir, 'scanned/scan02-booktabs-p2.pdf'));

  let peakSum = 0;
  let hostPid: number | undefined;
  const sample = () => {
    hostPid ??= descendants(child.pid).find((pid) => /llm-host/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8')));
    const sum = (procStatusKb(child.pid, 'VmRSS') ?? 0) + (hostPid ? (procStatusKb(hostPid, 'VmRSS') ?? 0) : 0);
    peakSum = Math.max(peakSum, sum);
  };
  const timer = setInterval(sample, 50);
  const started = performance.now();
  const answer = chatStream(server, {
    job_id: paper.job_id,
    question: 'What does the paper say about bibliographies?',
    max_tokens: Number(args['max-tokens']),
    llm_provider: 'local',
    llm_model: SMOLLM2,
  });
  const docs = Promise.all([ingest(server, 'long.pdf', long), ingest(server, 'scan.pdf', scan)]);
  const [{ events }, [a, b]] = await Promise.all([answer, docs]);
  const answered = events.find((e) => e.event === 'done');
  const tokenEvents = events.filter((e) => e.event === 'token');
  sample();
  clearInterval(timer);
  const serverPeak = procStatusKb(child.pid, 'VmHWM');
  const hostPeak = hostPid ? procStatusKb(hostPid, 'VmHWM') : null;

  log(
    `Memory: a local answer (${SMOLLM2}, max_tokens ${args['max-tokens']}) while a ${args.pages}-page PDF and a scanned page are read; ${os.availableParallelism()} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  log(
    `  answer: ${answered ? `${answered.data.usage.completion_tokens} tokens, done at ${ms(answered.at)}` : 'no done event'} (${tokenEvents.length} token events); documents: ${a.total_pages} pages ${a.status}, ${b.total_pages} page ${b.status}, all in ${ms(performance.now() - started)}`,
  );
  log(`  peak RSS, server process (worker threads included): ${mib(serverPeak)}`);
  log(`  peak RSS, llama host process: ${mib(hostPeak)}`);
  log(
    `  peak of the two together (sampled every 50 ms): ${mib(peakSum)}; sum of the two peaks: ${mib((serverPeak ?? 0) + (hostPeak ?? 0))}`,
  );
  log(
    `  goal under ${GOAL_MIB} MiB: ${(serverPeak ?? Infinity) + (hostPeak ?? 0) < GOAL_MIB * 1024 ? 'PASS' : 'FAIL'} (judged on the sum of the peaks)`,
  );
} finally {
  await child.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
