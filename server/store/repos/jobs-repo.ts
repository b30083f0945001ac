/**
 * Jobs with their blocks and chunks: what a document became (its job record), what was read from it (blocks)
 * and what is searched (chunks), each reviewed item at a version that every change raises by one.
 */
import type { Static } from 'typebox';
import type { JobSource } from '../../../drizzle/schema.js';
import type { DetectedLanguage, DocumentFormat } from '../../core/extract/types.js';
import type { JobState } from '../../core/jobs/job-states.js';
import type { Block, Chunk, Job } from '../../schemas/jobs.js';
import type { JobIndexRecord } from './collections-repo.js';
import type { OcrPages } from './pages-repo.js';
import type { PageOf, Paging } from './paging.js';

export type { JobSource };

/** A chunk as the API answers it. */
export type ChunkView = Static<typeof Chunk>;
/** A block as the API answers it (stale_chunks is PATCH's own addition). */
export type BlockView = Omit<Static<typeof Block>, 'stale_chunks'>;
/** Each review state's count among a job's blocks (LongParser's review_progress), and among its chunks. */
export type ReviewCounts = NonNullable<Static<typeof Job>['review']>;
export type ReviewTally = ReviewCounts['blocks'];

export interface JobStatusRecord {
  job: JobRecord;
  ocr: OcrPages;
  review: ReviewCounts;
  /** Where the job is embedded, if it is. */
  index: JobIndexRecord | null;
}

export interface JobOptions {
  chunk_size: number;
  chunk_overlap: number;
  /** Tesseract language data for pages and images that are OCRed (absent: English). */
  ocr_language?: string;
}

/** The most common page size of a job's pages and how many pages have it. */
export interface PageSizeSummary {
  width: number;
  height: number;
  /** How many pages have this size. */
  pages: number;
}

/** A job as stored: the API's job (core/views.ts: jobView) is made from it with its OCR pages. */
export interface JobRecord {
  job_id: string;
  status: JobState;
  source_file: string;
  format: DocumentFormat;
  file_hash: string;
  size_bytes: number;
  title: string | null;
  total_pages: number;
  pages_done: number;
  total_blocks: number;
  total_chunks: number;
  options: JobOptions;
  warnings: string[];
  error_code: string | null;
  error_message: string | null;
  finalize_policy: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  finalized_at: string | null;
  /** A bot's document: the bot whose knowledge it feeds (null for a job of the jobs API). */
  bot_id: string | null;
  source: JobSource | null;
  page_size: PageSizeSummary | null;
  /** Extractions started, counted before the work starts (a process that dies leaves its count behind). */
  attempts: number;
  detected_language: DetectedLanguage | null;
}

export type NewJob = Pick<
  JobRecord,
  | 'job_id'
  | 'status'
  | 'source_file'
  | 'format'
  | 'file_hash'
  | 'size_bytes'
  | 'options'
  | 'bot_id'
  | 'source'
  | 'created_at'
  | 'updated_at'
>;
export type JobChanges = Partial<Omit<JobRecord, 'job_id' | 'created_at' | 'attempts'>>;

export interface JobListQuery extends Paging {
  /** Any of these states; empty: every state. */
  statuses: string[];
  /** A key's scope: only these jobs and the documents of these bots; null: every job. */
  scope: { jobs: string[]; bots: string[] } | null;
}

/**
 * A block as stored. `type` and `text` are the machine's reading; a reviewer's are `edited_type` and
 * `edited_text` (the API's `type` and `text` are whichever counts).
 */
export interface BlockRecord {
  job_id: string;
  block_id: string;
  order_index: number;
  page: number;
  type: string;
  text: string;
  bbox: BlockView['bbox'];
  heading_level: number | null;
  /** null for blocks that are not list items (the API answers 0). */
  indent_level: number | null;
  hierarchy_path: string[];
  table_grid: BlockView['table'];
  language: string | null;
  /** 'text' (the document's own text layer or markup) or 'ocr'. */
  source: string;
  confidence: number | null;
  flagged: boolean;
  status: string;
  edited_text: string | null;
  edited_type: string | null;
  reviewer_note: string | null;
  version: number;
  current_revision_id: string | null;
  updated_at: string;
}

/** A block as the extraction made it, before any review (status pending, version 1). */
export type NewBlock = Omit<
  BlockRecord,
  | 'job_id'
  | 'status'
  | 'edited_text'
  | 'edited_type'
  | 'reviewer_note'
  | 'version'
  | 'current_revision_id'
  | 'updated_at'
>;
export type BlockChanges = Partial<Omit<BlockRecord, 'job_id' | 'block_id'>>;

/** Which blocks: every condition given must hold. `type` is the type that counts (a reviewer's, else the machine's). */
export interface BlockFilter {
  status?: string;
  /** Every status but this one. */
  not_status?: string;
  type?: string;
  page?: number;
  flagged?: boolean;
  source?: string;
}

export interface BlockListQuery extends BlockFilter, Paging {
  /** 'confidence': lowest OCR confidence first, blocks without one after them in reading order. */
  sort?: 'order' | 'confidence';
}

/** A chunk as built, before any review (status pending, version 1). */
export type NewChunk = Pick<
  ChunkView,
  'chunk_id' | 'order_index' | 'token_count' | 'chunk_type' | 'section_path' | 'page_numbers' | 'block_ids'
> & { text: string };
/** `original_text` rewrites the text as built (a purge cutting a block's words out of it). */
export type ChunkChanges = Partial<
  Pick<
    ChunkView,
    | 'order_index'
    | 'original_text'
    | 'edited_text'
    | 'status'
    | 'reviewer_note'
    | 'stale'
    | 'version'
    | 'current_revision_id'
    | 'updated_at'
    | 'block_ids'
  >
>;

export interface ChunkFilter {
  status?: string;
  chunk_type?: string;
  /** Chunks spanning this page. */
  page?: number;
  stale?: boolean;
  /** Chunks built from this block. */
  block_id?: string;
}

/** A page as the extraction measured it. */
export interface NewPage {
  page: number;
  width: number;
  height: number;
  rotation: number | null;
  needs_ocr: boolean;
  ocr: { language: string; confidence: number | null; rotation: number | null } | null;
}

/** What an extraction hands over: its pages, blocks and chunks, and what the job learns of the document. */
export interface Extraction {
  pages: NewPage[];
  blocks: NewBlock[];
  chunks: NewChunk[];
  job: JobChanges;
}

export interface JobsRepo {
  insert(job: NewJob): Promise<JobRecord>;
  get(jobId: string): Promise<JobRecord | null>;
  /** Newest first (ties by id, so pages do not overlap). */
  list(q: JobListQuery): Promise<PageOf<JobRecord>>;
  /** Sets fields of a job; with `whenStatus`, only while it is in one of those states. Whether a row changed. */
  update(jobId: string, set: JobChanges, whenStatus?: readonly string[]): Promise<boolean>;
  /**
   * Moves a queued job (or one in any of `from`) to processing, counting the attempt (pages_done back to 0);
   * null when it is in none of them. A team server's claimer takes over a row a dead node left processing.
   */
  claim(jobId: string, now: string, from?: readonly string[]): Promise<JobRecord | null>;
  /** Takes back one counted attempt (never below 0): the work was stopped, it did not fail. */
  uncountAttempt(jobId: string): Promise<void>;
  /** Jobs left queued or processing, oldest first, all queued again. */
  requeueUnfinished(): Promise<string[]>;
  /** Deletes a job with everything it holds (pages, blocks, chunks, revisions…). */
  delete(jobId: string): Promise<void>;
  /**
   * Replaces the job's pages, blocks and chunks with an extraction's and sets `extraction.job`, in one
   * transaction, if the job is still processing; false, writing nothing, when it is not (cancelled, deleted).
   */
  saveExtraction(jobId: string, extraction: Extraction): Promise<boolean>;
  /** Each job's blocks by review state, in one query for a page of jobs. */
  blockTallies(jobIds: readonly string[]): Promise<Map<string, ReviewTally>>;
  reviewCounts(jobId: string): Promise<ReviewCounts>;
  /**
   * What GET /jobs/{id} shows of a job, read together (its followers read it at every change of the job, on a
   * team server on every API node): null for no such job.
   */
  status(jobId: string): Promise<JobStatusRecord | null>;
  /** Sets total_blocks and total_chunks to the rows the job holds. */
  recount(jobId: string, now: string): Promise<{ total_blocks: number; total_chunks: number }>;
}

export interface BlocksRepo {
  get(jobId: string, blockId: string): Promise<BlockRecord | null>;
  /** The blocks of these ids that exist, in no particular order. */
  getMany(jobId: string, blockIds: readonly string[]): Promise<BlockRecord[]>;
  list(jobId: string, q: BlockListQuery): Promise<PageOf<BlockRecord>>;
  /** Every block matching, in reading order. */
  find(jobId: string, filter?: BlockFilter): Promise<BlockRecord[]>;
  /** The block right before (or after) `orderIndex` in reading order. */
  neighbour(jobId: string, orderIndex: number, side: 'before' | 'after'): Promise<BlockRecord | null>;
  /** The lowest order_index of the job's blocks (0 when it has none). */
  firstOrderIndex(jobId: string): Promise<number>;
  insert(jobId: string, block: Omit<BlockRecord, 'job_id'>): Promise<BlockRecord>;
  /**
   * Sets fields of a block. With `ifVersion`, only while the block is at that version (one UPDATE … WHERE
   * version = ?): null when it is not, or when the block does not exist.
   */
  update(jobId: string, blockId: string, set: BlockChanges, ifVersion?: number): Promise<BlockRecord | null>;
  delete(jobId: string, blockId: string): Promise<void>;
  /** Moves the blocks at `fromOrder` and after it one place on (all but `except`), making room for one. */
  shiftFrom(jobId: string, fromOrder: number, except: string | null): Promise<void>;
  /** Numbers the job's blocks 0..n-1 again in their order. */
  compactOrder(jobId: string): Promise<void>;
  /** Changes with any block's version, count or order: compared before and after a long computation. */
  fingerprint(jobId: string): Promise<string>;
}

export interface ChunksRepo {
  get(jobId: string, chunkId: string): Promise<ChunkView | null>;
  /** In document order. */
  list(jobId: string, q: ChunkFilter & Paging): Promise<PageOf<ChunkView>>;
  /** Every chunk matching, in document order. */
  find(jobId: string, filter?: ChunkFilter): Promise<ChunkView[]>;
  ids(jobId: string): Promise<string[]>;
  insertMany(jobId: string, chunks: readonly NewChunk[]): Promise<void>;
  /** Sets fields of a chunk; with `ifVersion`, only at that version (null when not, or no such chunk). */
  update(jobId: string, chunkId: string, set: ChunkChanges, ifVersion?: number): Promise<ChunkView | null>;
  deleteMany(jobId: string, chunkIds: readonly string[]): Promise<void>;
  /** Marks stale the chunks built from any of these blocks; how many. */
  markStale(jobId: string, blockIds: readonly string[]): Promise<number>;
}
