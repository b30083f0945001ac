import type { Static } from 'typebox';
import type {
  Block as BlockSchema,
  Chunk as ChunkSchema,
  FinalizePolicy as FinalizePolicySchema,
  FinalizeResult as FinalizeResultSchema,
  Job as JobSchema,
  RechunkResult as RechunkResultSchema,
  Revision as RevisionSchema,
  UploadAccepted as UploadAcceptedSchema,
} from '../../../server/schemas/jobs.js';

// The UI's types come from the server's TypeBox schemas, so a field renamed there breaks the build here.

export type Job = Static<typeof JobSchema> & {
  /** Filled by servers that embed (issue 4): progress of POST /jobs/{id}/embed. */
  embedding?: { done: number; total: number } | null;
};

/**
 * Servers with OCR (issue 3) add a confidence (0-1 or 0-100) and a flag to blocks read with low
 * confidence; both stay optional so the UI works against servers with and without them.
 */
export type Block = Static<typeof BlockSchema> & { confidence?: number | null; flagged?: boolean; source?: string };
export type Chunk = Static<typeof ChunkSchema>;
export type Revision = Static<typeof RevisionSchema>;
export type FinalizePolicy = Static<typeof FinalizePolicySchema>;
export type FinalizeResult = Static<typeof FinalizeResultSchema>;
export type RechunkResult = Static<typeof RechunkResultSchema>;
export type UploadAccepted = Static<typeof UploadAcceptedSchema>;

export type JobStatus = Job['status'];
export type ReviewStatus = Block['status'];
export type BlockType = Block['type'];

export interface ListPage<T> {
  items: T[];
  total: number;
  skip: number;
  limit: number;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}
