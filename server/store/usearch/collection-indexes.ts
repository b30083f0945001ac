import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { vectorIndexName, type VectorCollectionSpec } from '../repos/search-index.js';
import { openVectorIndex, type VectorIndex } from './vector-index.js';

/**
 * The open USearch index of each collection, one file per collection in `dir` (`<data_dir>/indexes/`). An
 * index is opened (read into RAM) once and kept, so searches never pay the load; `openAll` does it at
 * start-up. The folder is made on the first open, so a store that never touches vectors leaves none.
 */
export function createCollectionIndexes(dir: string, opts: { expansionSearch?: number } = {}) {
  const open = new Map<string, VectorIndex>();
  let made = false;
  // Collection names are checked by the API schema ([A-Za-z0-9_.-]), a reindex's index adds `~<id>`; the
  // prefix keeps '.'/'..' harmless. Indexes are named by `vectorIndexName`, the collection's own by default.
  const pathOf = (name: string) => join(dir, `c-${name}.usearch`);

  function get(spec: VectorCollectionSpec): VectorIndex {
    const name = vectorIndexName(spec);
    let index = open.get(name);
    if (!index) {
      if (!made) mkdirSync(dir, { recursive: true });
      made = true;
      index = openVectorIndex({
        path: pathOf(name),
        dimensions: spec.dimensions,
        metric: 'cos',
        quantization: spec.quantization,
        // At a million vectors the default breadth (64) loses recall; 128 costs ~1 ms more (BENCHMARKS.md).
        expansionSearch: opts.expansionSearch ?? 128,
      });
      open.set(name, index);
    }
    return index;
  }

  return {
    get,
    /** The collection's saved file (it may not exist yet). */
    pathOf,
    openAll(specs: readonly VectorCollectionSpec[]): void {
      for (const s of specs) get(s);
    },
    /** Forgets an index (by `vectorIndexName`) and removes its files. */
    drop(name: string): void {
      open.delete(name);
      for (const suffix of ['', '.json', '.tmp', '.json.tmp']) rmSync(pathOf(name) + suffix, { force: true });
    },
  };
}
export type CollectionIndexes = ReturnType<typeof createCollectionIndexes>;
