import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openVectorIndex, type VectorIndex, type VectorQuantization } from './vector-index.js';

export interface CollectionIndexSpec {
  name: string;
  dimensions: number;
  quantization: string;
}

/**
 * The open USearch index of each collection, one file per collection under `<data_dir>/indexes/`. An index
 * is opened (read into RAM) once and kept, so searches never pay the load; `openAll` does it at start-up.
 */
export function createCollectionIndexes(dataDir: string, opts: { expansionSearch?: number } = {}) {
  const dir = join(dataDir, 'indexes');
  mkdirSync(dir, { recursive: true });
  const open = new Map<string, VectorIndex>();
  // Collection names are checked by the API schema ([A-Za-z0-9_.-]); the prefix keeps '.'/'..' harmless.
  const pathOf = (name: string) => join(dir, `c-${name}.usearch`);

  function get(spec: CollectionIndexSpec): VectorIndex {
    let index = open.get(spec.name);
    if (!index) {
      index = openVectorIndex({
        path: pathOf(spec.name),
        dimensions: spec.dimensions,
        metric: 'cos',
        quantization: spec.quantization as VectorQuantization,
        // At a million vectors the default breadth (64) loses recall; 128 costs ~1 ms more (BENCHMARKS.md).
        expansionSearch: opts.expansionSearch ?? 128,
      });
      open.set(spec.name, index);
    }
    return index;
  }

  return {
    get,
    openAll(specs: CollectionIndexSpec[]): void {
      for (const s of specs) get(s);
    },
    /** Forgets a collection and removes its files. */
    drop(name: string): void {
      open.delete(name);
      for (const suffix of ['', '.json', '.tmp', '.json.tmp']) rmSync(pathOf(name) + suffix, { force: true });
    },
  };
}
export type CollectionIndexes = ReturnType<typeof createCollectionIndexes>;
