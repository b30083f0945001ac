import type { Store } from '../store.js';
import type { TableSide } from './table-side.js';
import { MIRRORED_TABLES, type MirroredTable } from './tables.js';

export interface VectorReport {
  collection: string;
  copied: number;
  /** Keys the target holds a vector under already. */
  skipped: number;
  /** Rows whose key holds no vector in the source (an embed cut short): search finds them by full text until the job is embedded again. */
  absent: number;
}

/** Keys per round: the desktop saves its whole index file after each write, so fewer, larger writes. */
const BATCH = 2000;

const chunkVectors = MIRRORED_TABLES.find((t) => t.name === 'chunk_vectors') as MirroredTable;

export interface VectorEnd {
  side: TableSide;
  store: Store;
}

/**
 * Copies the vectors of every collection of the source, after the rows: for each page of a collection's
 * chunk_vectors rows, the keys the target lacks are read from the source's index and written to the
 * target's. Rows come first so that a run cut short in between is completed by the next one, which finds
 * the rows present and the vectors missing.
 */
export async function copyVectors(from: VectorEnd, to: VectorEnd): Promise<VectorReport[]> {
  const reports: VectorReport[] = [];
  for (const c of await from.store.collections.list()) {
    const spec = { name: c.name, dimensions: c.dimensions, quantization: c.quantization, vector_index: c.vector_index };
    const report: VectorReport = { collection: c.name, copied: 0, skipped: 0, absent: 0 };
    let after: Record<string, unknown> | null = null;
    for (;;) {
      const rows = await from.side.page(chunkVectors, after, BATCH, { column: 'collection', value: c.name });
      const last = rows.at(-1);
      if (!last) break;
      const keys = rows.map((r) => Number(r.key));
      const present = await to.store.search.vectors.present(spec, keys);
      const vectors = await from.store.search.vectors.read(
        spec,
        keys.filter((k) => !present.has(k)),
      );
      if (vectors.size > 0) {
        const flat = new Float32Array(vectors.size * spec.dimensions);
        [...vectors.values()].forEach((v, i) => flat.set(v, i * spec.dimensions));
        await to.store.search.vectors.write(spec, { add: { keys: [...vectors.keys()], vectors: flat } });
      }
      report.copied += vectors.size;
      report.skipped += present.size;
      report.absent += keys.length - present.size - vectors.size;
      after = { id: last.id };
    }
    reports.push(report);
  }
  return reports;
}
