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
    items: Type.Optional(
      Type.Array(BlockRef, { minItems: 1, maxItems: 10_000, description: 'The blocks, each at the version you read' }),
    ),
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

export const SplitBody = Type.Object(
  {
    at: Type.Integer({
      minimum: 1,
      description:
        "Character offset in the block's effective text (its edit if any): the second part starts here. Whitespace at the cut is dropped; both parts need words.",
    }),
    version: Type.Integer({ minimum: 1, description: 'The version you read' }),
  },
  { additionalProperties: false },
);

export const MergeBody = Type.Object(
  {
    items: Type.Array(BlockRef, {
      minItems: 2,
      maxItems: 1_000,
      description: 'The blocks, each at the version you read; joined in reading order into the first',
    }),
    separator: Type.Optional(
      Type.String({
        maxLength: 10,
        description: 'Put between the texts; a space by default (a paragraph broken in two)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const MoveBody = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: 'The version you read' }),
    after_block_id: Nullable(Type.String(), {
      description: 'The block it should follow in reading order; null puts it first',
    }),
  },
  { additionalProperties: false },
);

export const StructureResult = Type.Object({
  job_id: Type.String(),
  blocks: Type.Array(Type.Ref('Block'), { description: 'Blocks changed or created, at their new versions' }),
  removed: Type.Array(Type.String(), { description: 'Ids of blocks that no longer exist (merged into the first)' }),
  revisions: Type.Array(Type.Object({ block_id: Type.String(), version: Type.Integer(), revision_id: Type.String() }), {
    description:
      'One per block touched; send them (any one is enough) to POST /jobs/{job_id}/blocks/undo to take the whole operation back',
  }),
  stale_chunks: Type.Integer({ description: 'Chunks marked stale: rebuilt at rechunk or finalize' }),
});
