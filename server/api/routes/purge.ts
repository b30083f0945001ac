import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../schemas/common.js';
import { BlockParams, ChunkParams } from '../../schemas/jobs.js';
import type { ServerDeps } from '../services.js';

const tags = ['review'];
const Ids = Type.Array(Type.String());

const BlockPurged = Type.Object({
  status: Type.Literal('purged'),
  block_id: Type.String(),
  tombstone_revision_id: Type.String({
    description: 'The audit revision that records the purge (a hash of the text, never the text)',
  }),
  chunks_purged: Type.Array(Type.String(), {
    description: 'Chunks removed with it (the block was all they held, or its text could not be cut out of them)',
  }),
  chunks_trimmed: Ids,
  chunks_after_purge: Type.Integer({ description: 'Chunks the job has now (LongParser: chunks_after_rechunk)' }),
});

const ChunkPurged = Type.Object({
  status: Type.Literal('purged'),
  chunk_id: Type.String(),
  tombstone_revision_id: Type.String(),
});

const description =
  "Admin keys only. Removes the content from everywhere Lectern keeps it: the row, the vectors and full-text entries (the collection's " +
  "index_version moves on), earlier revisions' texts and snapshots, chat sources and answers quoting it; the export no longer has it " +
  '(its copy of the uploaded original still does). One tombstone revision (action `purged`, a text hash, no text) stays in the audit. ' +
  '409 INVALID_STATE while the job is queued, processing or embedding.';

export const purgeRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/jobs/:job_id/blocks/:block_id/purge',
    {
      schema: {
        tags,
        summary: 'Purge a block for good: its text leaves the block, the chunks built from it, the index and the audit',
        description: `${description} Chunks built from the block lose its paragraph (or are purged too when it was all they held) and their vectors: embed again to index what is left.`,
        params: BlockParams,
        response: { 200: BlockPurged, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => deps.purge.block(req.params.job_id, req.params.block_id, req.reviewer),
  );

  app.post(
    '/jobs/:job_id/chunks/:chunk_id/purge',
    {
      schema: {
        tags,
        summary: 'Purge a chunk for good: its text leaves the chunk list, the index and the audit',
        description,
        params: ChunkParams,
        response: { 200: ChunkPurged, ...errors(401, 403, 404, 409) },
      },
    },
    async (req) => deps.purge.chunk(req.params.job_id, req.params.chunk_id, req.reviewer),
  );
};
