import { Type } from 'typebox';
import { Nullable, StringEnum } from './common.js';
import { BlockSource, BlockType, ReviewStatus } from './jobs.js';

const BlockRef = Type.Object(
  { block_id: Type.String(), version: Type.Integer({ minimum: 1, description: 'The version you read' }) },
  { additionalProperties: false },
);

export const BulkReviewBody = Type.Object(
  {
    status: StringEnum(['approved', 'rejected', 'pending'] as const, {
      description: 'approved keeps an edited block `edited` (its edit is what is approved)',
    }),
    reviewer_note: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    items: Type.Optional(Type.Array(BlockRef, { minItems: 1, maxItems: 10_000, description: 'The blocks, each at the version you read' })),
    filter: Type.Optional(
      Type.Object(
        {
          page: Type.Optional(Type.Integer({ minimum: 1 })),
          status: Type.Optional(ReviewStatus),
          type: Type.Optional(BlockType),
          flagged: Type.Optional(Type.Boolean()),
          source: Type.Optional(BlockSource),
        },
        { additionalProperties: false, description: 'Every block matching all of these, at its current version' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const UndoBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          block_id: Type.String(),
          version: Type.Integer({ minimum: 1, description: 'The version you read' }),
          revision_id: Type.String({ description: 'The revision to take back: the block returns to its `before`' }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 10_000 },
    ),
  },
  { additionalProperties: false },
);

export const BulkResult = Type.Object({
  job_id: Type.String(),
  updated: Type.Integer({ description: 'Blocks changed, one revision each' }),
  unchanged: Type.Integer({ description: 'Blocks already as asked: nothing written' }),
  stale_chunks: Type.Integer({ description: 'Chunks marked stale by these changes' }),
  blocks: Type.Array(Type.Ref('Block'), { description: 'The changed blocks at their new versions' }),
});
