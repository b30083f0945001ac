import { eq } from 'drizzle-orm';
import { chunks, jobs } from '../../../drizzle/schema.js';
import type { Db } from '../db.js';

export interface ChunkedDocument {
  chunk_id: string;
  text: string;
  section_path: string[];
}

/**
 * Writes a finalized job whose chunks are given whole (one approved chunk per document of a retrieval set),
 * unless a job of that id exists; true when it wrote one. For benches that measure embedding and search
 * over a corpus chunked in advance, where ingest would chunk it its own way.
 */
export function writeChunkedJob(db: Db, jobId: string, sourceFile: string, documents: readonly ChunkedDocument[]): boolean {
  return db.transaction((tx) => {
    if (tx.select({ id: jobs.jobId }).from(jobs).where(eq(jobs.jobId, jobId)).get()) return false;
    tx.insert(jobs).values({ jobId, status: 'finalized', sourceFile, format: 'text', fileHash: '-', sizeBytes: 0, options: { chunk_size: 512, chunk_overlap: 0 } }).run();
    for (let i = 0; i < documents.length; i += 500) {
      tx.insert(chunks)
        .values(
          documents.slice(i, i + 500).map((d, j) => ({
            jobId, chunkId: d.chunk_id, orderIndex: i + j, text: d.text, tokenCount: 0, chunkType: 'section', sectionPath: d.section_path, pageNumbers: [1], blockIds: [], status: 'approved',
          })),
        )
        .run();
    }
    return true;
  });
}
