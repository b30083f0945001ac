import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../schemas/common.js';
import {
  BlockList,
  BlockListQuery,
  BlockParams,
  BlockPatchBody,
  ChunkList,
  ChunkListQuery,
  ChunkParams,
  ChunkPatchBody,
  FinalizeBody,
  FinalizeResult,
  JobParams,
  RechunkResult,
} from '../../schemas/jobs.js';
import {
  BulkResult,
  BulkReviewBody,
  MergeBody,
  MoveBody,
  SplitBody,
  StructureResult,
  UndoBody,
} from '../../schemas/review.js';
import { sendPage } from '../paged-reply.js';
import type { ServerDeps } from '../services.js';

const tags = ['review'];
const conflict =
  'A `version` other than the current one answers 409 VERSION_CONFLICT with the current item in `error.details.current`, and nothing is written. ' +
  "Each change writes one audit revision in the same transaction; the reviewer is the X-Reviewer header, else the API key's name.";

export const reviewRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.get(
    '/jobs/:job_id/blocks',
    {
      schema: {
        tags,
        summary: 'List extracted blocks in reading order',
        params: JobParams,
        querystring: BlockListQuery,
        response: { 200: BlockList, ...errors(400, 401, 404) },
      },
    },
    async (req, reply) => sendPage(req, reply, await deps.blocks.list(req.params.job_id, req.query)),
  );

  app.get(
    '/jobs/:job_id/blocks/:block_id',
    {
      schema: {
        tags,
        summary: 'One block',
        params: BlockParams,
        response: { 200: Type.Ref('Block'), ...errors(401, 404) },
      },
    },
    async (req) => deps.blocks.get(req.params.job_id, req.params.block_id),
  );

  app.patch(
    '/jobs/:job_id/blocks/:block_id',
    {
      schema: {
        tags,
        summary: 'Review or edit a block',
        description: `${conflict} Editing text or type (status becomes \`edited\` unless given) or rejecting marks the chunks built from the block stale.`,
        params: BlockParams,
        body: BlockPatchBody,
        response: { 200: Type.Ref('Block'), ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.blocks.patch(req.params.job_id, req.params.block_id, req.body, req.reviewer),
  );

  app.post(
    '/jobs/:job_id/blocks/review',
    {
      schema: {
        tags,
        summary: 'Review many blocks at once',
        description:
          'Sets the status (and note) of the listed blocks (`items`, each at the version you read) or of every block matching `filter` ' +
          '(by page, status, type, flagged, source). One transaction; one audit revision per block changed; blocks already as asked are ' +
          'counted as unchanged. Any listed block at another version answers 409 VERSION_CONFLICT with `error.details.stale` ' +
          '(each with its current copy) and nothing is written; unknown ids answer 404 BLOCK_NOT_FOUND with `details.missing`.',
        params: JobParams,
        body: BulkReviewBody,
        response: { 200: BulkResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.blocksBulk.review(req.params.job_id, req.body, req.reviewer),
  );

  app.post(
    '/jobs/:job_id/blocks/undo',
    {
      schema: {
        tags,
        summary: 'Undo review changes',
        description:
          'Each listed block returns exactly to the state before `revision_id` (status, edited text and type, note), written as one ' +
          '`undo` revision naming the revision it takes back. A block changed since that revision answers 409 VERSION_CONFLICT with ' +
          '`error.details.stale`; nothing is written. One transaction for all. A revision of a split, merge or move takes back the whole ' +
          'operation (blocks it created are removed, blocks it removed come back after the block they followed, moved ones go back), ' +
          'whichever of its revisions is named; a removed block is named at the version it had.',
        params: JobParams,
        body: UndoBody,
        response: { 200: BulkResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.blocksBulk.undo(req.params.job_id, req.body.items, req.reviewer),
  );

  const structure =
    'One transaction; each block touched gets one audit revision (action `split`, `merge` or `move`) and the chunks built from the blocks ' +
    'around are marked stale (rebuilt at rechunk or finalize; the export follows the new blocks and order). Any of the `revisions` it ' +
    'answers, sent to POST /jobs/{job_id}/blocks/undo, takes the whole operation back. A block at another version answers 409 ' +
    'VERSION_CONFLICT with its current copy; a job not in review answers 409 INVALID_STATE.';

  app.post(
    '/jobs/:job_id/blocks/:block_id/split',
    {
      schema: {
        tags,
        summary: 'Split a block in two',
        description: `The text before \`at\` stays in the block; the rest becomes a new block right after it (same page, box, type and review status). An edit is folded into the parts' text. ${structure}`,
        params: BlockParams,
        body: SplitBody,
        response: { 200: StructureResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.blockStructure.split(req.params.job_id, req.params.block_id, req.body, req.reviewer),
  );

  app.post(
    '/jobs/:job_id/blocks/merge',
    {
      schema: {
        tags,
        summary: 'Merge blocks into one',
        description:
          'The texts (edits applied) are joined in reading order into the first block, which keeps its place and id; the others are removed. ' +
          'Blocks reviewed alike keep that status, a mix becomes pending. Unknown ids answer 404 BLOCK_NOT_FOUND with `details.missing`; ' +
          `stale ones 409 with \`details.stale\`. ${structure}`,
        params: JobParams,
        body: MergeBody,
        response: { 200: StructureResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.blockStructure.merge(req.params.job_id, req.body, req.reviewer),
  );

  app.post(
    '/jobs/:job_id/blocks/:block_id/move',
    {
      schema: {
        tags,
        summary: 'Move a block in the reading order',
        description: `Puts the block right after \`after_block_id\` (first for null); its page does not change. Moving it where it already is changes nothing (empty \`revisions\`). ${structure}`,
        params: BlockParams,
        body: MoveBody,
        response: { 200: StructureResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.blockStructure.move(req.params.job_id, req.params.block_id, req.body, req.reviewer),
  );

  app.get(
    '/jobs/:job_id/chunks',
    {
      schema: {
        tags,
        summary: 'List chunks',
        params: JobParams,
        querystring: ChunkListQuery,
        response: { 200: ChunkList, ...errors(400, 401, 404) },
      },
    },
    async (req, reply) => sendPage(req, reply, await deps.chunks.list(req.params.job_id, req.query)),
  );

  app.patch(
    '/jobs/:job_id/chunks/:chunk_id',
    {
      schema: {
        tags,
        summary: 'Review or edit a chunk',
        description: conflict,
        params: ChunkParams,
        body: ChunkPatchBody,
        response: { 200: Type.Ref('Chunk'), ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => deps.chunks.patch(req.params.job_id, req.params.chunk_id, req.body, req.reviewer),
  );

  app.post(
    '/jobs/:job_id/rechunk',
    {
      schema: {
        tags,
        summary: 'Rebuild chunks from the reviewed blocks',
        description:
          'Edited text and type applied, rejected blocks left out. Chunks whose text did not change keep their ids and review state.',
        params: JobParams,
        response: { 200: RechunkResult, ...errors(401, 404, 409) },
      },
    },
    async (req) => ({ status: 'rechunked' as const, ...(await deps.rechunk(req.params.job_id, req.reviewer)) }),
  );

  app.post(
    '/jobs/:job_id/finalize',
    {
      schema: {
        tags,
        summary: 'Close review',
        description:
          'Policies: `require_all_approved` (409 PENDING_ITEMS with the counts while anything is pending or stale); `auto_approve_pending` ' +
          '(also `approve_pending`, `approve_all_pending`); `auto_reject_pending` (also `reject_pending`; the default): pending blocks are ' +
          'rejected and pending chunks follow their blocks. Stale chunks are rebuilt first.',
        params: JobParams,
        body: FinalizeBody,
        response: { 200: FinalizeResult, ...errors(400, 401, 404, 409) },
      },
    },
    async (req) => {
      const done = await deps.finalize(req.params.job_id, req.body.finalize_policy, req.reviewer);
      return { ...done, policy: done.finalize_policy };
    },
  );
};
