import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import usearch, { type ScalarKind } from 'usearch';
import type { VectorQuantization } from '../repos/collections-repo.js';

export type { VectorQuantization };

export interface VectorIndexOptions {
  /** The index file; one per collection. Its settings live beside it in `<path>.json`. */
  path: string;
  dimensions: number;
  metric: 'cos';
  quantization: VectorQuantization;
  /** Memory-map the saved file instead of reading it into RAM; the index is then read-only. */
  view?: boolean;
  /** Threads for add and search; 0 lets USearch decide. */
  threads?: number;
  /** HNSW graph degree and build/search breadth; 0 or absent takes USearch's defaults (16, 128, 64). */
  connectivity?: number;
  expansionAdd?: number;
  /**
   * Candidates kept per search: not stored in the file, so it can change at every open. Recall at 1M
   * vectors needs more than the default (see BENCHMARKS.md); latency grows with it.
   */
  expansionSearch?: number;
}

export interface SearchResult {
  keys: bigint[];
  /** Cosine distances (1 - similarity), nearest first. */
  distances: number[];
}

export interface VectorIndex {
  readonly path: string;
  readonly size: number;
  readonly readOnly: boolean;
  /** Adds or replaces: a key already present gets the new vector. `vectors` is n×dimensions, row-major. */
  add(keys: readonly bigint[], vectors: Float32Array | readonly Float32Array[]): void;
  remove(keys: readonly bigint[]): number;
  has(key: bigint): boolean;
  search(vector: Float32Array, k: number): SearchResult;
  /** Writes `<path>.tmp`, flushes it and renames it over `<path>`, so a crash never leaves half a file. */
  save(): void;
}

interface Sidecar {
  format: 1;
  dimensions: number;
  metric: string;
  quantization: VectorQuantization;
}

export class VectorIndexMismatchError extends Error {
  readonly code = 'INDEX_MISMATCH';
}

function writeAtomic(path: string, write: (tmp: string) => void): void {
  const tmp = `${path}.tmp`;
  write(tmp);
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * Opens the USearch HNSW index of one collection, loading (or memory-mapping) the saved file when there is
 * one. Keys are integers a collection hands out and never reuses; chunk_vectors maps each to its chunk.
 */
export function openVectorIndex(opts: VectorIndexOptions): VectorIndex {
  const sidecarPath = `${opts.path}.json`;
  const wanted: Sidecar = {
    format: 1,
    dimensions: opts.dimensions,
    metric: opts.metric,
    quantization: opts.quantization,
  };
  const exists = existsSync(opts.path) && statSync(opts.path).size > 0;
  if (existsSync(sidecarPath)) {
    const found = JSON.parse(readFileSync(sidecarPath, 'utf8')) as Partial<Sidecar>;
    const diffs = (['dimensions', 'metric', 'quantization'] as const).filter((k) => found[k] !== wanted[k]);
    if (diffs.length) {
      const what = diffs.map((k) => `${k} ${String(found[k])} (wanted ${wanted[k]})`).join(', ');
      throw new VectorIndexMismatchError(`${opts.path} was built with ${what}; rebuild the collection's index`);
    }
  } else if (exists) {
    throw new VectorIndexMismatchError(
      `${opts.path} has no ${sidecarPath} describing it; rebuild the collection's index`,
    );
  }

  const index = new usearch.Index({
    dimensions: opts.dimensions,
    metric: usearch.MetricKind.Cos,
    quantization: opts.quantization as ScalarKind,
    connectivity: opts.connectivity ?? 0,
    expansion_add: opts.expansionAdd ?? 0,
    expansion_search: opts.expansionSearch ?? 0,
    multi: false,
  });
  const readOnly = Boolean(opts.view && exists);
  if (exists) {
    if (opts.view) index.view(opts.path);
    else index.load(opts.path);
    if (index.dimensions() !== opts.dimensions) {
      throw new VectorIndexMismatchError(
        `${opts.path} holds ${index.dimensions()}-d vectors, not ${opts.dimensions}-d`,
      );
    }
  }
  const threads = opts.threads ?? 0;
  const writable = (): void => {
    if (readOnly) throw new Error(`${opts.path} is memory-mapped (view) and read-only`);
  };

  return {
    path: opts.path,
    readOnly,
    get size() {
      return index.size();
    },
    add(keys, vectors) {
      writable();
      const flat = vectors instanceof Float32Array ? vectors : concat(vectors, opts.dimensions);
      if (flat.length !== keys.length * opts.dimensions) {
        throw new Error(
          `add: ${keys.length} keys but ${flat.length / opts.dimensions} vectors of ${opts.dimensions} dimensions`,
        );
      }
      if (keys.length === 0) return;
      const keyArray = BigUint64Array.from(keys);
      // USearch refuses duplicate keys in a non-multi index: drop the old vectors so add is an upsert.
      const present = index.contains(keyArray) as boolean[];
      const stale = keyArray.filter((_, i) => present[i]);
      if (stale.length) index.remove(stale);
      index.add(keyArray, flat, threads);
    },
    remove(keys) {
      writable();
      if (keys.length === 0) return 0;
      const removed = index.remove(BigUint64Array.from(keys));
      return Array.isArray(removed) ? removed.reduce((s, n) => s + n, 0) : removed;
    },
    has: (key) => index.contains(key) as boolean,
    search(vector, k) {
      if (vector.length !== opts.dimensions)
        throw new Error(`search: a ${vector.length}-d query for a ${opts.dimensions}-d index`);
      if (index.size() === 0) return { keys: [], distances: [] };
      const m = index.search(vector, Math.min(k, index.size()), threads);
      return { keys: Array.from(m.keys), distances: Array.from(m.distances) };
    },
    save() {
      writable();
      writeAtomic(sidecarPath, (tmp) => writeFileSync(tmp, `${JSON.stringify(wanted)}\n`));
      writeAtomic(opts.path, (tmp) => index.save(tmp));
    },
  };
}

function concat(rows: readonly Float32Array[], dimensions: number): Float32Array {
  const out = new Float32Array(rows.length * dimensions);
  rows.forEach((r, i) => {
    if (r.length !== dimensions) throw new Error(`add: vector ${i} has ${r.length} dimensions, not ${dimensions}`);
    out.set(r, i * dimensions);
  });
  return out;
}
