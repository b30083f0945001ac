/**
 * POST /jobs/{job_id}/pages/{page}/ocr: re-reads a page, or a region of it, with another resolution or
 * language, and offers the new text to the blocks the region covers. A pending OCR block takes the new text
 * (with an audit revision, and its chunks marked stale); a block a reviewer has approved, edited or rejected
 * is never overwritten, and neither is text from the document's own text layer: they get the new text as an
 * offer in the answer only.
 */
import type { FileStore } from '../../store/file-store.js';
import type { BlockRecord } from '../../store/repos/jobs-repo.js';
import type { Repositories, Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { BBox, ExtractedBlock } from '../extract/types.js';
import { ocrLanguageOption } from '../ocr/ocr-languages.js';
import type { TaskPool } from '../pool.js';
import { isFlagged, type BlockSource } from '../ocr/ocr-flags.js';
import { requireState, type ReviewStatus } from '../review/review-state.js';
import { assignReadings, coveredBy } from './match-readings.js';
import { findPagedJob, pageFailure } from './paged-job.js';
import { ORIGINAL_LINGER_MS } from './page-images.js';

export interface ReocrRequest {
  bbox?: BBox;
  dpi?: number;
  language?: string;
  apply?: boolean;
}

type BlockRow = BlockRecord;
type Outcome = 'applied' | 'reviewed' | 'text_layer' | 'not_applied' | 'unchanged' | 'nothing_read' | 'shape_changed';

interface Offer {
  text: string | null;
  confidence: number | null;
  /** The new grid when the block is a table read again as exactly one table. */
  table?: ExtractedBlock['table'];
}

/** The new text for one block: its readings joined in reading order, confidence weighted by length. */
function offerFor(readings: readonly ExtractedBlock[], block: BlockRow): Offer {
  if (readings.length === 0) return { text: null, confidence: null };
  const text = readings.map((r) => r.text).join('\n');
  const weight = readings.reduce((s, r) => s + r.text.length, 0) || 1;
  const confidence =
    Math.round((readings.reduce((s, r) => s + (r.confidence ?? 0) * r.text.length, 0) / weight) * 10) / 10;
  const single = readings.length === 1 ? readings[0] : undefined;
  return block.type === 'table' && single?.table ? { text, confidence, table: single.table } : { text, confidence };
}

function outcomeFor(block: BlockRow, offer: Offer, apply: boolean): Outcome {
  if (offer.text === null) return 'nothing_read';
  if (offer.text === block.text) return 'unchanged';
  if (block.status !== 'pending') return 'reviewed';
  if (block.source !== 'ocr') return 'text_layer';
  if (block.type === 'table' && !offer.table) return 'shape_changed';
  return apply ? 'applied' : 'not_applied';
}

async function applyOffer(
  tx: Pick<Repositories, 'blocks' | 'revisions'>,
  block: BlockRow,
  offer: Offer & { text: string; language: string },
  reviewer: string,
  now: string,
): Promise<BlockRow> {
  const flagged = isFlagged('ocr', offer.confidence);
  const revisionId = await tx.revisions.insert({
    job_id: block.job_id,
    entity_type: 'block',
    entity_id: block.block_id,
    previous_revision_id: block.current_revision_id,
    action: 'reocr',
    before: {
      text: block.text,
      confidence: block.confidence,
      flagged: block.flagged,
      language: block.language,
      version: block.version,
    },
    after: {
      text: offer.text,
      confidence: offer.confidence,
      flagged,
      language: offer.language,
      version: block.version + 1,
    },
    original_text: block.text,
    reviewer_id: reviewer,
    timestamp: now,
  });
  const set = {
    text: offer.text,
    confidence: offer.confidence,
    flagged,
    language: offer.language,
    version: block.version + 1,
    current_revision_id: revisionId,
    updated_at: now,
  };
  const row = await tx.blocks.update(
    block.job_id,
    block.block_id,
    offer.table ? { ...set, table_grid: offer.table } : set,
  );
  if (!row) throw new AppError('BLOCK_NOT_FOUND', `block ${block.block_id} does not exist in job ${block.job_id}`);
  return row;
}

/** `languagesDir`: the data folder's OCR languages, where a request's `language` must be installed. */
export function createReocr({
  store,
  pool,
  files,
  clock,
  languagesDir,
}: {
  store: Store;
  pool: Pick<TaskPool, 'ocrPage'>;
  files: FileStore;
  clock: Clock;
  languagesDir: string;
}) {
  return {
    async run(jobId: string, page: number, req: ReocrRequest, reviewer: string) {
      const job = await findPagedJob(store, jobId, page);
      requireState(job, ['ready_for_review'], 're-read a page');
      const language = ocrLanguageOption(req.language ?? job.options.ocr_language, languagesDir);
      const result = await files.useOriginal(
        jobId,
        job.source_file,
        (path) =>
          pool
            .ocrPage({
              path,
              format: job.format,
              page,
              lang: language,
              dpi: req.dpi ?? 300,
              ...(req.bbox ? { bbox: req.bbox } : {}),
            })
            .catch((err: unknown) => {
              throw pageFailure(err, page, 'could not be read again');
            }),
        ORIGINAL_LINGER_MS,
      );
      return store.transaction(async (tx) => {
        // The job may have been finalized or deleted while the page was being read.
        requireState(await findPagedJob(tx, jobId, page), ['ready_for_review'], 're-read a page');
        const onPage = await tx.blocks.find(jobId, { page });
        const covered = coveredBy(onPage, req.bbox ?? null);
        const owner = assignReadings(result.blocks, covered);
        const now = isoNow(clock);
        const changed: string[] = [];
        const suggestions = [];
        for (const [i, block] of covered.entries()) {
          const offer = offerFor(
            result.blocks.filter((_, k) => owner[k] === i),
            block,
          );
          const outcome = outcomeFor(block, offer, req.apply ?? true);
          let after = block;
          if (outcome === 'applied' && offer.text !== null) {
            after = await applyOffer(tx, block, { ...offer, text: offer.text, language }, reviewer, now);
            changed.push(block.block_id);
          }
          suggestions.push({
            block_id: block.block_id,
            // Stored as plain strings; only these values are ever written to them.
            status: block.status as ReviewStatus,
            source: block.source as BlockSource,
            version: after.version,
            current_text: block.text,
            suggested_text: offer.text,
            confidence: offer.confidence,
            flagged: isFlagged('ocr', offer.confidence),
            outcome,
          });
        }
        if (changed.length > 0) await tx.chunks.markStale(jobId, changed);
        return {
          job_id: jobId,
          page,
          language,
          // What the page was read at: an image is read at its own pixels, whatever was asked.
          dpi: result.dpi,
          bbox: req.bbox ?? null,
          rotation: result.page.ocr.rotation,
          confidence: result.page.ocr.confidence,
          read: result.blocks.map((b, k) => ({
            type: b.type,
            text: b.text,
            bbox: b.bbox,
            confidence: b.confidence ?? null,
            block_id: covered[owner[k] ?? -1]?.block_id ?? null,
          })),
          suggestions,
        };
      });
    },
  };
}
export type Reocr = ReturnType<typeof createReocr>;
