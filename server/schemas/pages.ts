/** Page geometry, page images and re-OCR of a page or region (routes in server/api/routes/pages.ts). */
import { Type } from 'typebox';
import { listOf, Nullable, Paging, StringEnum } from './common.js';
import { BlockSource, BlockType, ReviewStatus } from './jobs.js';

const BBox = Type.Object(
  { x0: Type.Number(), y0: Type.Number(), x1: Type.Number(), y1: Type.Number() },
  { description: 'PDF points, origin top-left (as block boxes)' },
);

export const PageParams = Type.Object({ job_id: Type.String(), page: Type.Integer({ minimum: 1 }) });

export const Page = Type.Object(
  {
    page: Type.Integer({ minimum: 1 }),
    width: Type.Number({
      description: 'Points, as the page is shown (after `rotation`): block boxes and page images are in this space',
    }),
    height: Type.Number(),
    rotation: Nullable(
      Type.Integer({
        description:
          "Clockwise degrees (0, 90, 180, 270) the document turns the page to show it (a PDF's /Rotate; image pages 0). " +
          'Null for pages read before Lectern kept it',
      }),
    ),
    needs_ocr: Type.Boolean({ description: 'The page has no usable text layer (a scan, or an image document)' }),
    ocr: Nullable(
      Type.Object(
        {
          language: Type.String(),
          confidence: Nullable(Type.Number({ description: 'Mean word confidence of the page, 0..100' })),
          rotation: Nullable(Type.Integer({ description: 'Clockwise quarter-turn applied to read the page upright' })),
        },
        {
          description:
            'Set once the page was OCRed; `rotation` is the turn applied to read it upright (boxes are of the page as shown)',
        },
      ),
    ),
  },
  { description: 'One page of a document with pages (PDF, image)' },
);

export const PageList = listOf(Page, 'Pages in order');
export const PageListQuery = Type.Object({ ...Paging });

export const PageImageQuery = Type.Object({
  size: Type.Integer({
    minimum: 64,
    maximum: 4000,
    default: 1200,
    description: "Width of the image in pixels; the height keeps the page's proportions",
  }),
});

export const ReocrBody = Type.Object(
  {
    bbox: Type.Optional(BBox),
    dpi: Type.Optional(
      Type.Integer({
        minimum: 72,
        maximum: 600,
        default: 300,
        description: 'Render resolution of a PDF page (an image is read at its own pixels)',
      }),
    ),
    language: Type.Optional(
      Type.String({
        description:
          "Languages to read with (eng, or several: eng+deu); default the job's ocr_language. 409 OCR_LANGUAGE_MISSING when not installed, 400 OCR_LANGUAGE_UNKNOWN for an unknown code",
      }),
    ),
    apply: Type.Optional(
      Type.Boolean({ default: true, description: 'Write the new text into pending OCR blocks; false only offers it' }),
    ),
  },
  { additionalProperties: false },
);

export const ReocrOutcome = StringEnum(
  ['applied', 'reviewed', 'text_layer', 'not_applied', 'unchanged', 'nothing_read', 'shape_changed'] as const,
  {
    description:
      'applied: the pending OCR block now holds the new text; reviewed: approved, edited or rejected blocks are never overwritten; ' +
      "text_layer: the block's text came from the document's text layer and is only offered; not_applied: apply was false; " +
      'unchanged: the new reading is the same text; nothing_read: OCR found no text inside the block; ' +
      'shape_changed: a table block read again as something other than one table is only offered',
  },
);

export const ReocrSuggestion = Type.Object({
  block_id: Type.String(),
  status: ReviewStatus,
  source: BlockSource,
  version: Type.Integer({ description: "The block's version after this request" }),
  current_text: Type.String({
    description: "The block's text before this request (a reviewer's edit is in edited_text, untouched)",
  }),
  suggested_text: Nullable(Type.String()),
  confidence: Nullable(Type.Number({ description: 'Mean word confidence of the new reading, 0..100' })),
  flagged: Type.Boolean(),
  outcome: ReocrOutcome,
});

export const ReocrResult = Type.Object(
  {
    job_id: Type.String(),
    page: Type.Integer(),
    language: Type.String(),
    dpi: Type.Integer({
      description:
        "Resolution the page was read at: the requested dpi for a PDF page, the image's own for an image document",
    }),
    bbox: Nullable(BBox),
    rotation: Type.Integer({ description: 'Clockwise quarter-turn applied to read the page upright' }),
    confidence: Type.Number({ description: "Tesseract's mean word confidence for the region read" }),
    read: Type.Array(
      Type.Object({
        type: BlockType,
        text: Type.String(),
        bbox: Nullable(BBox),
        confidence: Nullable(Type.Number()),
        block_id: Nullable(
          Type.String({ description: 'The existing block this text falls in; null when it falls in none' }),
        ),
      }),
      { description: 'Everything read, in reading order' },
    ),
    suggestions: Type.Array(ReocrSuggestion, {
      description: 'One per existing block the region covers, in reading order',
    }),
  },
  { description: 'The new reading of the page or region and what it offers each block it covers' },
);
