/**
 * Embedding benchmark: chunks per second for ~256-token chunks of real prose with all-MiniLM-L6-v2 (the
 * int8 test model from scripts/fetch-test-models.mjs), Lectern's embedder beside transformers.js on the
 * same model file in the same run, each engine in its own child process so its peak memory (VmHWM) is
 * its own. Also checks that the engines agree (cosine of their vectors for the same chunk, against the
 * first engine's: with the default engines, the product's int8 matmuls against the fp32 ones of
 * pool-before and transformers.js).
 *
 * Engines: `pool` (the product's shape: Piscina, 2 workers × 1 onnxruntime thread), `pool-before` (the
 * same with fp32 matmuls, the embedder as it was before int8 matmuls, int8-matmul.ts), `inproc` (one
 * session, 2 intra-op threads), `tjs` (transformers.js from the dev dependency @huggingface/transformers,
 * 2 intra-op threads; --transformers PATH takes another copy's ESM entry).
 *
 * Tasks are 8 chunks for every engine; Lectern's embedder splits them by its padded-token budget (1,024:
 * batches of 4 such chunks), transformers.js runs them as they are. "CPU s" is the engine process's CPU
 * time (all threads) while timed, steadier than chunks/s on a loaded machine; "in run" the share of wall
 * time inside InferenceSession.run (engines that run the session on the timing thread).
 *
 * Usage: tsx bench/embed.ts [--chunks 512] [--tokens 256] [--batch 8] [--rounds 1] [--engines pool,pool-before,inproc,tjs]
 *        [--transformers SPEC] [--json FILE]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTokenizer } from '../server/core/embedding/tokenizer.js';
import { ensureTestModels } from '../test/helpers/test-models.js';
import { proseChunks } from './lib/embed-corpus.js';
import { runLecternInProcess, runLecternPool, runTransformersJs, type EngineRun } from './lib/embed-engines.js';
import { num, table } from './lib/format.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '512' },
    tokens: { type: 'string', default: '256' },
    batch: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '1' },
    engines: { type: 'string', default: 'pool,pool-before,inproc,tjs' },
    transformers: { type: 'string', default: '@huggingface/transformers' },
    json: { type: 'string' },
    // Internal: run one engine in this (child) process and write its result to --out.
    engine: { type: 'string' },
    out: { type: 'string' },
  },
});
const chunkCount = Number(args.chunks);
const tokens = Number(args.tokens);
const batch = Number(args.batch);
const log = (line = ''): void => void process.stdout.write(`${line}\n`);

function peakRssKb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

async function child(engine: string, out: string): Promise<void> {
  const models = await ensureTestModels();
  const texts = proseChunks(createTokenizer(models.minilm.tokenizer), chunkCount, tokens);
  let run: EngineRun;
  try {
    run =
      engine === 'pool'
        ? await runLecternPool(models.minilm, texts, batch, tokens)
        : engine === 'pool-before'
          ? await runLecternPool(models.minilm, texts, batch, tokens, true)
          : engine === 'inproc'
            ? await runLecternInProcess(models.minilm, texts, batch, tokens)
            : await runTransformersJs(args.transformers ?? '', models.minilm, texts, batch);
  } catch (err) {
    // One line, last on stderr: the parent shows the tail of stderr in the engine's table row.
    process.stderr.write(`${engine}: ${(err as Error).message.split('\n')[0]}\n`);
    process.exit(1);
  }
  writeFileSync(`${out}.f32`, run.vectors);
  writeFileSync(
    out,
    JSON.stringify({
      engine: run.engine,
      seconds: run.seconds,
      chunksPerSecond: run.chunksPerSecond,
      cpuSeconds: run.cpuSeconds,
      runSeconds: run.runSeconds,
      peakRssKb: peakRssKb(),
    }),
  );
}

interface Result {
  engine: string;
  seconds: number;
  chunksPerSecond: number;
  cpuSeconds?: number;
  runSeconds?: number;
  peakRssKb: number;
  vectors?: Float32Array;
  error?: string;
}

async function main(): Promise<void> {
  const cpus = os.cpus();
  log(
    `# bench:embed — ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}`,
  );
  const models = await ensureTestModels();
  const tokenizer = createTokenizer(models.minilm.tokenizer);
  const texts = proseChunks(tokenizer, chunkCount, tokens);
  const lengths = texts.map((t) => tokenizer.encode(t, 100_000).ids.length);
  log(
    `model: ${models.minilm.onnx} (${models.minilm.quantization}); ${texts.length} chunks of ${Math.min(...lengths)}–${Math.max(...lengths)} tokens; batch ${batch}`,
  );
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-embed-'));
  const self = fileURLToPath(import.meta.url);
  const results: Result[] = [];
  const engines = (args.engines ?? '').split(',');
  const rounds = Math.max(1, Number(args.rounds));
  try {
    // Rounds alternate the engines, so a burst of load elsewhere hits every engine alike; an engine's row
    // is its fastest round (the least disturbed), its CPU time that round's.
    for (let round = 0; round < rounds; round++) {
      for (const engine of engines) {
        const out = path.join(dir, `${engine}.json`);
        const passArgs = [
          '--chunks',
          String(chunkCount),
          '--tokens',
          String(tokens),
          '--batch',
          String(batch),
          '--transformers',
          args.transformers ?? '',
        ];
        let result: Result;
        try {
          execFileSync(process.execPath, [...process.execArgv, self, '--engine', engine, '--out', out, ...passArgs], {
            stdio: ['ignore', 'inherit', 'pipe'],
          });
          const r = JSON.parse(readFileSync(out, 'utf8')) as Result;
          const buf = readFileSync(`${out}.f32`);
          result = { ...r, vectors: new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4) };
        } catch (err) {
          const stderr =
            String((err as { stderr?: Buffer }).stderr ?? err)
              .trim()
              .split('\n')
              .at(-1) ?? '';
          result = { engine, seconds: NaN, chunksPerSecond: NaN, peakRssKb: NaN, error: stderr };
        }
        if (rounds > 1)
          log(
            `round ${round + 1}: ${result.engine} ${num(result.chunksPerSecond)} chunks/s, ${num(((result.cpuSeconds ?? NaN) * 1000) / texts.length)} CPU ms/chunk`,
          );
        const at = engines.indexOf(engine);
        const prev = results[at];
        if (!prev || prev.error || (!result.error && result.chunksPerSecond > prev.chunksPerSecond))
          results[at] = result;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const ref = results.find((r) => r.vectors);
  const agreement = (r: Result): string => {
    if (!r.vectors || !ref?.vectors || r === ref) return r === ref ? '(reference)' : '-';
    let worst = 1;
    let sum = 0;
    let maxDiff = 0;
    for (let i = 0; i < texts.length; i++) {
      let dot = 0;
      for (let d = 0; d < 384; d++) {
        dot += r.vectors[i * 384 + d]! * ref.vectors[i * 384 + d]!;
        maxDiff = Math.max(maxDiff, Math.abs(r.vectors[i * 384 + d]! - ref.vectors[i * 384 + d]!));
      }
      worst = Math.min(worst, dot);
      sum += dot;
    }
    // max |Δ| 0 means the same floats, bit for bit.
    return `min cos ${worst.toFixed(5)}, mean ${(sum / texts.length).toFixed(5)}, max |Δ| ${maxDiff === 0 ? '0' : maxDiff.toExponential(1)}`;
  };
  log();
  log(
    table(
      ['engine', 'chunks/s', 'seconds', 'CPU s', 'CPU ms/chunk', 'in run', 'peak RSS MiB', 'agreement'],
      results.map((r) => [
        r.engine,
        num(r.chunksPerSecond),
        num(r.seconds, 2),
        num(r.cpuSeconds ?? NaN, 2),
        num(((r.cpuSeconds ?? NaN) * 1000) / texts.length),
        r.runSeconds === undefined ? '-' : `${((100 * r.runSeconds) / r.seconds).toFixed(1)}%`,
        num(r.peakRssKb / 1024, 0),
        r.error ? `failed: ${r.error.slice(0, 240)}` : agreement(r),
      ]),
      new Set([1, 2, 3, 4, 5, 6]),
    ),
  );
  const best = Math.max(
    ...results
      .filter((r) => r.engine.startsWith('lectern') && !r.engine.includes('before'))
      .map((r) => r.chunksPerSecond),
  );
  const tjs = results.find((r) => r.engine.startsWith('transformers'))?.chunksPerSecond;
  if (tjs !== undefined && Number.isFinite(tjs)) {
    log(
      `goal (Lectern at least 1.5× transformers.js): ${best >= 1.5 * tjs ? 'PASS' : 'FAIL'} (${num(best)} vs ${num(tjs)} chunks/s = ${(best / tjs).toFixed(2)}×)`,
    );
  }
  if (args.json)
    writeFileSync(
      args.json,
      JSON.stringify(
        results.map(({ vectors: _v, ...r }) => r),
        null,
        2,
      ),
    );
}

if (args.engine) await child(args.engine, args.out ?? '');
else await main();
