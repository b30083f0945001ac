/**
 * How much recall@10 a vector quantization can keep at all, without any graph: exact top-10 by cosine over
 * vectors rounded to f16 or quantized to i8 (both the stored vectors and the query, as USearch does),
 * against exact top-10 over the f32 vectors. An HNSW index over those vectors cannot beat this ceiling,
 * whatever its expansion_search; the first bench:search at 1M (bench/HISTORY.md) found i8 stuck at 0.84 for
 * every ef from 128 to 512.
 *
 * Same synthetic data as bench/search.ts (same generator and seeds): 384-d unit vectors, 10,000 topic
 * centres plus noise, queries from the same topics. A full build of a 1M index takes 12+ minutes on two
 * cores; this takes a few, so it can tell f16 from i8 at 1M cheaply.
 *
 * Usage: tsx bench/quantization-ceiling.ts [--size 1000000] [--queries 200]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import usearch, { type BatchMatches } from 'usearch';
import { ms, num, table } from './lib/format.js';
import { clusteredVectors, DIM, TOPICS } from './lib/synthetic-vectors.js';

const { values: args } = parseArgs({
  options: { size: { type: 'string', default: '1000000' }, queries: { type: 'string', default: '200' } },
});
const size = Number(args.size);
const nq = Number(args.queries);

/**
 * Rounds every value to IEEE half precision's 10-bit mantissa (round to nearest even) in place, on the
 * float32 bits. Values here are ~0.05 in size, far from f16's range limits, so exponents need no care.
 */
function roundToF16(v: Float32Array): Float32Array {
  const bits = new Uint32Array(v.buffer, v.byteOffset, v.length);
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i]!;
    bits[i] = (b + 0x0fff + ((b >>> 13) & 1)) & 0xffffe000;
  }
  return v;
}
/** USearch's i8 for cosine: unit-vector components scaled by 127 and rounded. */
function roundToI8(v: Float32Array): Float32Array {
  for (let i = 0; i < v.length; i++) v[i] = Math.max(-127, Math.min(127, Math.round(v[i]! * 127)));
  return v;
}

const kinds = ['f32', 'f16', 'i8'] as const;
const quantize = { f32: (v: Float32Array) => v, f16: roundToF16, i8: roundToI8 };

const centres = clusteredVectors(null, TOPICS, 1, 1);
const queries = clusteredVectors(centres, Math.max(1000, nq), 99, 0.5).subarray(0, nq * DIM);
const t0 = performance.now();
const data = clusteredVectors(centres, size, 7 + size, 0.5);
process.stderr.write(`generated ${size} vectors in ${ms(performance.now() - t0)}\n`);

// USearch's own brute-force scan (SIMD, not the index) over vectors holding the quantized values: the
// ranking by cosine is the one an index storing those values would compute.
const exact = (base: Float32Array, qs: Float32Array): BatchMatches =>
  usearch.exactSearch(base, qs, DIM, 10, usearch.MetricKind.Cos, 2) as BatchMatches;
const t1 = performance.now();
const truth = exact(data, queries);
const rows = kinds.map((k) => {
  const t = performance.now();
  const matches = k === 'f32' ? truth : exact(quantize[k](data.slice()), quantize[k](queries.slice()));
  let found = 0;
  for (let j = 0; j < nq; j++) {
    const want = new Set(truth.get(j).keys);
    found += Array.from(matches.get(j).keys).filter((key) => want.has(key)).length;
  }
  process.stderr.write(`  ${k}: ${ms(performance.now() - t)}\n`);
  return [k, String(size), String(nq), num(found / (nq * 10), 3)];
});
process.stdout.write(
  `# quantization ceiling: exact top-10 over quantized vectors vs exact f32 (scan ${ms(performance.now() - t1)})\n`,
);
process.stdout.write(`${table(['quant', 'vectors', 'queries', 'recall@10 ceiling'], rows, new Set([1, 2, 3]))}\n`);
