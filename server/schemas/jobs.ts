import { Type } from 'typebox';
import { BLOCK_TYPES, COLUMN_TYPES, DOCUMENT_FORMATS } from '../core/extract/types.js';
import { CHUNK_TYPES } from '../core/chunking/types.js';
import { JOB_STATES } from '../core/jobs/job-states.js';
import { REVIEW_STATUSES } from '../core/review/review-state.js';
import { FINALIZE_POLICIES } from '../core/review/finalize.js';
import { BLOCK_SOURCES, FLAG_BELOW_CONFIDENCE } from '../core/ocr/ocr-flags.js';
import { arrayPage, Nullable, Paging, StringEnum } from './common.js';
import { JobIndex } from './embed.js';

export const JobState = StringEnum(JOB_STATES);
export const ReviewStatus = StringEnum(REVIEW_STATUSES);
export const BlockType = StringEnum(BLOCK_TYPES);
export const ChunkType = StringEnum(CHUNK_TYPES);
export const BlockSource = StringEnum(BLOCK_SOURCES, {
  description: "text: the document's own text; ocr: read from the page image",
});
export const FinalizePolicy = StringEnum(Object.keys(FINALIZE_POLICIES) as (keyof typeof FINALIZE_POLICIES)[], {
  description:
    'require_all_approved refuses while anything is pending; the approve/reject spellings settle pending items',
});

const BBox = Type.Object(
  { x0: Type.Number(), y0: Type.Number(), x1: Type.Number(), y1: Type.Number() },
  { description: 'PDF points, origin top-left' },
);
const TableGrid = Type.Object({
  rows: Type.Array(Type.Array(Type.String())),
  header_rows: Type.Integer(),
  column_types: Type.Optional(
    Type.Array(StringEnum(COLUMN_TYPES), {
      description: "Spreadsheets and CSV: each column's type, inferred from its cells below the header",
    }),
  ),
});
const Counts = Type.Object({
  pending: Type.Integer(),
  approved: Type.Integer(),
  edited: Type.Integer(),
  rejected: Type.Integer(),
});

export const Job = Type.Object(
  {
    job_id: Type.String(),
    status: JobState,
    source_file: Type.String(),
    format: StringEnum(DOCUMENT_FORMATS),
    file_hash: Type.String({ description: 'sha256 of the uploaded file' }),
    size_bytes: Type.Integer(),
    title: Nullable(Type.String()),
    total_pages: Type.Integer(),
    total_blocks: Type.Integer(),
    total_chunks: Type.Integer(),
    progress: Type.Object({ pages_done: Type.Integer(), total_pages: Type.Integer() }),
    pages_needing_ocr: Type.Array(Type.Integer(), { description: 'Pages without extractable text' }),
    page_size: Nullable(
      Type.Object(
        {
          width: Type.Number({ description: 'Points, as the page is shown (the space of block boxes)' }),
          height: Type.Number(),
          pages: Type.Integer({ description: 'Pages of this size: total_pages when every page has it' }),
        },
        {
          description:
            "The most common page size (every page's own: GET /jobs/{job_id}/pages); null for documents without pages and before extraction",
        },
      ),
    ),
    options: Type.Object({
      chunk_size: Type.Integer(),
      chunk_overlap: Type.Integer(),
      ocr_language: Type.Optional(Type.String()),
    }),
    ocr: Type.Object(
      {
        language: Type.String({ description: 'Language data OCR uses for this job' }),
        pages: Type.Array(
          Type.Object({
            page: Type.Integer(),
            language: Type.String(),
            confidence: Nullable(Type.Number({ description: 'Mean word confidence of the page, 0..100' })),
            rotation: Nullable(
              Type.Integer({ description: 'Clockwise quarter-turn applied to read the page upright' }),
            ),
          }),
          { description: 'Pages whose text came from OCR' },
        ),
      },
      { description: 'Which pages were OCRed, with which language data' },
    ),
    detected_language: Nullable(
      Type.Object(
        {
          code: Type.String({ description: 'ISO 639-3 (macrolanguage where one exists: ara, zho)' }),
          ocr_language: Nullable(
            Type.String({ description: 'The OCR language that reads it (tesseract code), when Lectern knows one' }),
          ),
          confidence: Type.Number({ description: '0..1: how far ahead of the next candidate' }),
          source: StringEnum(['text', 'ocr'] as const, {
            description: 'Detected on the text layer, or on the first OCR pass of a scan',
          }),
        },
        {
          description:
            'The language the document is written in, detected after extraction; null when unsure or not yet read',
        },
      ),
    ),
    warnings: Type.Array(Type.String()),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
    finalize_policy: Nullable(Type.String()),
    bot_id: Type.Optional(Type.String({ description: "A bot's document: the bot" })),
    ingest_status: Type.Optional(
      StringEnum(['pending', 'processing', 'success', 'failed'] as const, {
        description: "A bot's document: success once searchable (Long-Trainer's words)",
      }),
    ),
    source: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            "A bot's document: the path, link (url, final_url, sha256, fetched_at) or article (title, url, revision_id)",
        }),
      ),
    ),
    created_at: Type.String(),
    updated_at: Type.String(),
    started_at: Nullable(Type.String()),
    finished_at: Nullable(Type.String()),
    finalized_at: Nullable(Type.String()),
    review: Type.Optional(
      Type.Object({ blocks: Counts, chunks: Type.Object({ ...Counts.properties, stale: Type.Integer() }) }),
    ),
    review_progress: Type.Optional(
      Type.Object(Counts.properties, {
        description:
          "The blocks' review states, as LongParser's JobResponse counts them (GET /jobs and GET /jobs/{job_id})",
      }),
    ),
    index: Type.Optional(Nullable(JobIndex)),
  },
  { $id: 'Job' },
);

export const Block = Type.Object(
  {
    block_id: Type.String(),
    order_index: Type.Integer(),
    type: StringEnum(BLOCK_TYPES, {
      description: "What counts: the reviewer's type (edited_type) when there is one, else the extracted type",
    }),
    text: Type.String({
      description: "What counts: the reviewer's text (edited_text) when there is one, else the extracted text",
    }),
    original_type: BlockType,
    original_text: Type.String({ description: "The text as extracted (the machine's reading)" }),
    page: Type.Integer(),
    page_number: Type.Integer(),
    bbox: Nullable(BBox),
    heading_level: Nullable(Type.Integer()),
    indent_level: Type.Integer({
      description: 'Nesting of a list item (0 at the top level, as LongParser has it); 0 for other blocks',
    }),
    hierarchy_path: Type.Array(Type.String()),
    table: Nullable(TableGrid),
    language: Nullable(
      Type.String({ description: "A code block's language; for an OCR block, the OCR language data it was read with" }),
    ),
    source: BlockSource,
    confidence: Nullable(Type.Number({ description: 'OCR only: mean word confidence, 0..100' })),
    flagged: Type.Boolean({ description: `OCR text below confidence ${FLAG_BELOW_CONFIDENCE}: look at it first` }),
    status: ReviewStatus,
    review_status: ReviewStatus,
    edited_text: Nullable(Type.String()),
    edited_type: Nullable(BlockType),
    reviewer_note: Nullable(Type.String()),
    version: Type.Integer(),
    current_revision_id: Nullable(Type.String()),
    updated_at: Type.String(),
    stale_chunks: Type.Optional(Type.Integer({ description: 'Chunks marked stale by this edit (PATCH only)' })),
  },
  { $id: 'Block' },
);

export const Chunk = Type.Object(
  {
    chunk_id: Type.String(),
    order_index: Type.Integer(),
    text: Type.String({
      description: "What counts: the reviewer's text (edited_text) when there is one, else the text as built",
    }),
    original_text: Type.String({ description: 'The text as built from the blocks' }),
    edited_text: Nullable(Type.String()),
    token_count: Type.Integer(),
    chunk_type: ChunkType,
    section_path: Type.Array(Type.String()),
    page_numbers: Type.Array(Type.Integer()),
    block_ids: Type.Array(Type.String()),
    status: ReviewStatus,
    review_status: ReviewStatus,
    reviewer_note: Nullable(Type.String()),
    stale: Type.Boolean({ description: 'A block it was built from changed; POST rechunk rebuilds it' }),
    version: Type.Integer(),
    current_revision_id: Nullable(Type.String()),
    updated_at: Type.String(),
  },
  { $id: 'Chunk' },
);

export const Revision = Type.Object(
  {
    revision_id: Type.String(),
    entity_type: StringEnum(['block', 'chunk', 'job'] as const),
    entity_id: Type.String(),
    previous_revision_id: Nullable(Type.String()),
    action: Type.String({
      description:
        "A review change is named as LongParser names it, by the status it left: approved, edited, rejected, pending. Lectern's own: " +
        'auto_approved and auto_rejected (finalize settling pending items), undo, rechunk, finalize, reocr, split, merge',
    }),
    before: Nullable(Type.Record(Type.String(), Type.Unknown())),
    after: Nullable(Type.Record(Type.String(), Type.Unknown())),
    original_text: Nullable(Type.String()),
    edited_text: Nullable(Type.String()),
    edited_type: Nullable(Type.String()),
    reviewer_id: Type.String(),
    reviewer_note: Nullable(Type.String()),
    timestamp: Type.String(),
    undoes_revision_id: Nullable(Type.String({ description: 'On an undo: the revision whose change it took back' })),
  },
  { $id: 'Revision' },
);

export const JobParams = Type.Object({ job_id: Type.String() });
export const BlockParams = Type.Object({ job_id: Type.String(), block_id: Type.String() });
export const ChunkParams = Type.Object({ job_id: Type.String(), chunk_id: Type.String() });

/** LongParser's JobListResponse {jobs, total}, with the page asked for. */
export const JobList = Type.Object(
  {
    jobs: Type.Array(Type.Ref('Job')),
    total: Type.Integer({ description: 'Matching jobs in all' }),
    skip: Type.Integer(),
    limit: Type.Integer(),
  },
  { description: 'Jobs, newest first' },
);
// LongParser answers these lists as bare arrays; the paging is in the X-Total-Count and Link headers.
export const BlockList = arrayPage(Type.Ref('Block'), 'Blocks in reading order');
export const ChunkList = arrayPage(Type.Ref('Chunk'), 'Chunks in document order');
export const RevisionList = arrayPage(Type.Ref('Revision'), 'Revisions, newest first');

export const JobListQuery = Type.Object({
  status: Type.Optional(Type.String({ description: 'One state or several, comma-separated' })),
  ...Paging,
});
export const BlockListQuery = Type.Object({
  status: Type.Optional(ReviewStatus),
  flagged: Type.Optional(
    Type.Boolean({ description: 'Only blocks flagged for low OCR confidence (true) or only the others (false)' }),
  ),
  source: Type.Optional(BlockSource),
  sort: Type.Optional(
    StringEnum(['order', 'confidence'] as const, {
      description: 'order: reading order (default); confidence: lowest OCR confidence first, blocks without one last',
    }),
  ),
  type: Type.Optional(BlockType),
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  ...Paging,
});
export const ChunkListQuery = Type.Object({
  status: Type.Optional(ReviewStatus),
  chunk_type: Type.Optional(ChunkType),
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  stale: Type.Optional(Type.Boolean()),
  ...Paging,
});
export const AuditQuery = Type.Object({
  entity_type: Type.Optional(StringEnum(['block', 'chunk', 'job'] as const)),
  entity_id: Type.Optional(Type.String()),
  action: Type.Optional(Type.String()),
  reviewer: Type.Optional(
    Type.String({ maxLength: 200, description: 'Only changes by this reviewer (the exact name)' }),
  ),
  page: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Only changes to blocks on this page and to chunks spanning it' }),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: 500,
      description: 'Only changes whose text (before or after), note or item id contains this, ignoring case',
    }),
  ),
  ...Paging,
});

const version = Type.Integer({
  minimum: 1,
  description: 'The version you read; a different current version answers 409',
});
const note = Type.Optional(Nullable(Type.String({ maxLength: 10_000 })));
const editedText = Nullable(Type.String({ maxLength: 1_000_000 }), {
  description:
    'The corrected text. null (or the extracted text itself) clears the edit: the item reads as extracted again. ' +
    'An empty or blank text answers 400 EMPTY_TEXT unless allow_empty is true.',
});
const allowEmpty = Type.Boolean({
  description: 'Keep an empty edited_text: the reviewer means to blank the item (rejecting leaves it out instead)',
});
export const BlockPatchBody = Type.Object(
  {
    version,
    status: Type.Optional(ReviewStatus),
    edited_text: Type.Optional(editedText),
    edited_type: Type.Optional(
      Nullable(BlockType, { description: 'null, or the extracted type: back to the extracted type' }),
    ),
    reviewer_note: note,
    allow_empty: Type.Optional(allowEmpty),
  },
  { additionalProperties: false },
);
export const ChunkPatchBody = Type.Object(
  {
    version,
    status: Type.Optional(ReviewStatus),
    edited_text: Type.Optional(editedText),
    reviewer_note: note,
    allow_empty: Type.Optional(allowEmpty),
  },
  { additionalProperties: false },
);
export const FinalizeBody = Type.Object({ finalize_policy: Type.Optional(FinalizePolicy) });
export const FinalizeResult = Type.Object({
  job_id: Type.String(),
  status: Type.Literal('finalized'),
  policy: Type.String({ description: 'The policy applied, as LongParser answers it (the spelling sent)' }),
  finalize_policy: Type.String(),
  finalized_at: Type.String(),
  counts: Type.Object({ blocks: Counts, chunks: Type.Object({ ...Counts.properties, stale: Type.Integer() }) }),
});
export const RechunkResult = Type.Object({
  status: Type.Literal('rechunked'),
  job_id: Type.String(),
  total_chunks: Type.Integer(),
  kept: Type.Integer({ description: 'Chunks whose content did not change; their review state is kept' }),
  added: Type.Integer(),
  removed: Type.Integer(),
});
/** LongParser's JobResponse fields (tenant_id, totals, review_progress, finalized_at, error) with Lectern's own. */
export const UploadAccepted = Type.Object({
  job_id: Type.String(),
  tenant_id: Type.String({ description: 'The name of the API key that uploaded (LongParser: a hash of its key)' }),
  status: JobState,
  source_file: Type.String(),
  format: Type.String(),
  file_hash: Type.String(),
  size_bytes: Type.Integer(),
  total_pages: Type.Integer(),
  total_blocks: Type.Integer(),
  total_chunks: Type.Integer(),
  review_progress: Counts,
  created_at: Type.String(),
  finalized_at: Nullable(Type.String()),
  error: Nullable(Type.String()),
});
