/**
 * Embedding benchmark: chunks per second for ~256-token chunks of real prose with all-MiniLM-L6-v2 (the
 * int8 test model from scripts/fetch-test-models.mjs), Lectern's embedder beside transformers.js on the
 * same model file in the same run, each engine in its own child process so its peak memory (VmHWM) is
 * its own. Also checks that the engines agree (cosine of their vectors for the same chunk).
 *
 * Engines: `pool` (the product's shape: Piscina, 2 workers × 1 onnxruntime thread), `inproc` (one
 * session, 2 intra-op threads), `tjs` (transformers.js from the dev dependency @huggingface/transformers,
 * 2 intra-op threads; --transformers PATH takes another copy's ESM entry).
 *
 * Batches are 8 chunks for every engine: the embedder caps a batch at 2,048 padded tokens anyway (memory
 * grows with batch size, speed does not), and transformers.js gets the same batches.
 *
 * Usage: tsx bench/embed.ts [--chunks 512] [--tokens 256] [--batch 8] [--engines pool,inproc,tjs]
 *        [--transformers SPEC] [--json FILE]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createWordPieceTokenizer } from '../server/core/embedding/wordpiece.js';
import { ensureTestModels } from '../test/helpers/test-models.js';
import { proseChunks } from './lib/embed-corpus.js';
import { runLecternInProcess, runLecternPool, runTransformersJs, type EngineRun } from './lib/embed-engines.js';
import { num, table } from './lib/format.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '512' },
    tokens: { type: 'string', default: '256' },
    batch: { type: 'string', default: '8' },
    engines: { type: 'string', default: 'pool,inproc,tjs' },
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
  const texts = proseChunks(createWordPieceTokenizer(models.minilm.tokenizer), chunkCount, tokens);
  let run: EngineRun;
  try {
    run =
      engine === 'pool' ? await runLecternPool(models.minilm, texts, batch, tokens)
      : engine === 'inproc' ? await runLecternInProcess(models.minilm, texts, batch, tokens)
      : await runTransformersJs(args.transformers ?? '', models.minilm, texts, batch);
  } catch (err) {
    // One line, last on stderr: the parent shows the tail of stderr in the engine's table row.
    process.stderr.write(`${engine}: ${(err as Error).message.split('\n')[0]}\n`);
    process.exit(1);
  }
  writeFileSync(`${out}.f32`, run.vectors);
  writeFileSync(out, JSON.stringify({ engine: run.engine, seconds: run.seconds, chunksPerSecond: run.chunksPerSecond, peakRssKb: peakRssKb() }));
}

interface Result {
  engine: string;
  seconds: number;
  chunksPerSecond: number;
  peakRssKb: number;
  vectors?: Float32Array;
  error?: string;
}

async function main(): Promise<void> {
  const cpus = os.cpus();
  log(`# bench:embed — ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, Node ${process.version}`);
  const models = await ensureTestModels();
  const tokenizer = createWordPieceTokenizer(models.minilm.tokenizer);
  const texts = proseChunks(tokenizer, chunkCount, tokens);
  const lengths = texts.map((t) => tokenizer.encode(t, 100_000).ids.length);
  log(`model: ${models.minilm.onnx} (${models.minilm.quantization}); ${texts.length} chunks of ${Math.min(...lengths)}–${Math.max(...lengths)} tokens; batch ${batch}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-embed-'));
  const self = fileURLToPath(import.meta.url);
  const results: Result[] = [];
  try {
    for (const engine of (args.engines ?? '').split(',')) {
      const out = path.join(dir, `${engine}.json`);
      const passArgs = ['--chunks', String(chunkCount), '--tokens', String(tokens), '--batch', String(batch), '--transformers', args.transformers ?? ''];
      try {
        execFileSync(process.execPath, [...process.execArgv, self, '--engine', engine, '--out', out, ...passArgs], { stdio: ['ignore', 'inherit', 'pipe'] });
        const r = JSON.parse(readFileSync(out, 'utf8')) as Result;
        const buf = readFileSync(`${out}.f32`);
        results.push({ ...r, vectors: new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4) });
      } catch (err) {
        const stderr = String((err as { stderr?: Buffer }).stderr ?? err).trim().split('\n').at(-1) ?? '';
        results.push({ engine, seconds: NaN, chunksPerSecond: NaN, peakRssKb: NaN, error: stderr });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const ref = results.find((r) => r.vectors);
  const agreement = (r: Result): string => {
    if (!r.vectors || !ref?.vectors || r === ref) return r === ref ? '(reference)' : '-';
    let worst = 1;
    for (let i = 0; i < texts.length; i++) {
      let dot = 0;
      for (let d = 0; d < 384; d++) dot += r.vectors[i * 384 + d]! * ref.vectors[i * 384 + d]!;
      worst = Math.min(worst, dot);
    }
    return `min cos ${worst.toFixed(5)}`;
  };
  log();
  log(table(
    ['engine', 'chunks/s', 'seconds', 'peak RSS MiB', 'agreement'],
    results.map((r) => [r.engine, num(r.chunksPerSecond), num(r.seconds, 2), num(r.peakRssKb / 1024, 0), r.error ? `failed: ${r.error.slice(0, 240)}` : agreement(r)]),
    new Set([1, 2, 3]),
  ));
  const best = Math.max(...results.filter((r) => r.engine.startsWith('lectern')).map((r) => r.chunksPerSecond));
  const tjs = results.find((r) => r.engine.startsWith('transformers'))?.chunksPerSecond;
  if (tjs !== undefined && Number.isFinite(tjs)) log(`goal (Lectern at least as fast as transformers.js): ${best >= tjs ? 'PASS' : 'FAIL'} (${num(best)} vs ${num(tjs)} chunks/s)`);
  if (args.json) writeFileSync(args.json, JSON.stringify(results.map(({ vectors: _v, ...r }) => r), null, 2));
}

if (args.engine) await child(args.engine, args.out ?? '');
else await main();
