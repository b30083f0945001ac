import { sql } from 'drizzle-orm';
import { index, uniqueIndex, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { DetectedLanguage } from '../server/core/extract/types.js';

/** JSON columns hold plain data that the store reads whole and never queries inside. */
const json = <T>(name: string) => text(name, { mode: 'json' }).$type<T>();
const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

export interface JobSource {
  /**
   * upload: a file sent through the API (the desk's picker and drops). chat_training: answered questions of
   * the bot's chats, put up for review before the bot learns them.
   */
  kind: 'path' | 'upload' | 'link' | 'encyclopedia' | 'chat_training';
  /** With review: true the document waits for a person's finalize before the bot can use it. */
  review: boolean;
  path?: string;
  url?: string;
  final_url?: string;
  sha256?: string;
  fetched_at?: string;
  title?: string;
  revision_id?: number;
  /** chat_training: the message behind each question, in the order of the document (Q1, Q2…). */
  pairs?: { chat_id: string; message_id: string; citations: BotCitationRow[] }[];
}

export const jobs = sqliteTable(
  'jobs',
  {
    jobId: text('job_id').primaryKey(),
    status: text('status').notNull(),
    sourceFile: text('source_file').notNull(),
    format: text('format').notNull(),
    fileHash: text('file_hash').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    totalPages: integer('total_pages').notNull().default(0),
    pagesDone: integer('pages_done').notNull().default(0),
    totalBlocks: integer('total_blocks').notNull().default(0),
    totalChunks: integer('total_chunks').notNull().default(0),
    title: text('title'),
    /** `ocr_language`: tesseract language data for pages and images that are OCRed (absent: English). */
    options: json<{ chunk_size: number; chunk_overlap: number; ocr_language?: string }>('options').notNull(),
    warnings: json<string[]>('warnings').notNull().default([]),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    finalizePolicy: text('finalize_policy'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
    finalizedAt: text('finalized_at'),
    /** A bot's document: the bot whose knowledge it feeds (null for a job of the jobs API). */
    botId: text('bot_id'),
    /** Where a bot's document came from: a path, a link (url, final url, sha256, fetch time) or an article. */
    source: json<JobSource | null>('source'),
    /**
     * The most common page size (points, as pages are shown) and how many pages have it, written with the
     * pages: GET /jobs/{id} reports it without reading every page row of a 100,000-page job.
     */
    pageSize: json<{ width: number; height: number; pages: number } | null>('page_size'),
    /**
     * Extractions started for the job, counted before the work starts: a process that dies in the middle
     * leaves its count behind, so a document that kills the server is not resumed in a loop.
     */
    attempts: integer('attempts').notNull().default(0),
    /** The document's language, detected from its text layer or first OCR pass (null: unsure or not read yet). */
    detectedLanguage: json<DetectedLanguage | null>('detected_language'),
  },
  (t) => [index('jobs_status_idx').on(t.status, t.createdAt), index('jobs_bot_idx').on(t.botId)],
);

export const pages = sqliteTable(
  'pages',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => jobs.jobId, { onDelete: 'cascade' }),
    page: integer('page').notNull(),
    width: real('width').notNull(),
    height: real('height').notNull(),
    needsOcr: integer('needs_ocr', { mode: 'boolean' }).notNull(),
    /** The page's /Rotate (clockwise turn it is shown at); null for pages read before it was kept. */
    rotation: integer('rotation'),
    /** Set once the page was OCRed: the language data used, tesseract's mean word confidence, and the turn read upright. */
    ocrLanguage: text('ocr_language'),
    ocrConfidence: real('ocr_confidence'),
    ocrRotation: integer('ocr_rotation'),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.page] })],
);

export const blocks = sqliteTable(
  'blocks',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => jobs.jobId, { onDelete: 'cascade' }),
    blockId: text('block_id').notNull(),
    orderIndex: integer('order_index').notNull(),
    page: integer('page').notNull(),
    type: text('type').notNull(),
    text: text('text').notNull(),
    bbox: json<{ x0: number; y0: number; x1: number; y1: number } | null>('bbox'),
    headingLevel: integer('heading_level'),
    indentLevel: integer('indent_level'),
    hierarchyPath: json<string[]>('hierarchy_path').notNull(),
    tableGrid: json<{ rows: string[][]; header_rows: number } | null>('table_grid'),
    language: text('language'),
    /** 'text' (the document's own text layer or markup) or 'ocr'. */
    source: text('source').notNull().default('text'),
    /** OCR only: mean word confidence 0..100. */
    confidence: real('confidence'),
    /** OCR text below the confidence threshold, for the reviewer to look at first. */
    flagged: integer('flagged', { mode: 'boolean' }).notNull().default(false),
    status: text('status').notNull().default('pending'),
    editedText: text('edited_text'),
    editedType: text('edited_type'),
    reviewerNote: text('reviewer_note'),
    version: integer('version').notNull().default(1),
    currentRevisionId: text('current_revision_id'),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.jobId, t.blockId] }),
    index('blocks_order_idx').on(t.jobId, t.orderIndex),
    index('blocks_page_idx').on(t.jobId, t.page),
  ],
);

export const chunks = sqliteTable(
  'chunks',
  {
    jobId: text('job_id')
      .notNull()
      .references(() => jobs.jobId, { onDelete: 'cascade' }),
    chunkId: text('chunk_id').notNull(),
    orderIndex: integer('order_index').notNull(),
    text: text('text').notNull(),
    tokenCount: integer('token_count').notNull(),
    chunkType: text('chunk_type').notNull(),
    sectionPath: json<string[]>('section_path').notNull(),
    pageNumbers: json<number[]>('page_numbers').notNull(),
    blockIds: json<string[]>('block_ids').notNull(),
    status: text('status').notNull().default('pending'),
    editedText: text('edited_text'),
    reviewerNote: text('reviewer_note'),
    /** Set when a block the chunk was built from changed after the chunk was built. */
    stale: integer('stale', { mode: 'boolean' }).notNull().default(false),
    version: integer('version').notNull().default(1),
    currentRevisionId: text('current_revision_id'),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.chunkId] }), index('chunks_order_idx').on(t.jobId, t.orderIndex)],
);

export const revisions = sqliteTable(
  'revisions',
  {
    revisionId: text('revision_id').primaryKey(),
    /** Monotonic within the database, so "newest first" is exact even within one millisecond. */
    seq: integer('seq').notNull(),
    jobId: text('job_id')
      .notNull()
      .references(() => jobs.jobId, { onDelete: 'cascade' }),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id').notNull(),
    previousRevisionId: text('previous_revision_id'),
    action: text('action').notNull(),
    before: json<Record<string, unknown> | null>('before'),
    after: json<Record<string, unknown> | null>('after'),
    originalText: text('original_text'),
    editedText: text('edited_text'),
    editedType: text('edited_type'),
    reviewerId: text('reviewer_id').notNull(),
    reviewerNote: text('reviewer_note'),
    timestamp: text('timestamp').notNull(),
    /** An undo names the revision whose change it takes back (its `before` is what the undo restores). */
    undoesRevisionId: text('undoes_revision_id'),
  },
  (t) => [
    uniqueIndex('revisions_seq_idx').on(t.seq),
    index('revisions_job_idx').on(t.jobId, t.seq), index('revisions_entity_idx').on(t.jobId, t.entityType, t.entityId)],
);

/**
 * A named vector collection: one USearch file under <data_dir>/indexes/. Model and dimension are fixed
 * when it is created, so vectors of different models are never mixed in one index.
 */
export const collections = sqliteTable('collections', {
  name: text('name').primaryKey(),
  provider: text('provider').notNull(),
  /** A remote provider's address, so search embeds queries where the documents were embedded. */
  baseUrl: text('base_url'),
  model: text('model').notNull(),
  dimensions: integer('dimensions').notNull(),
  quantization: text('quantization').notNull(),
  metric: text('metric').notNull().default('cos'),
  /** The next USearch key to hand out; keys are never reused, so a stale key can never name a new chunk. */
  nextKey: integer('next_key').notNull().default(1),
  /** Bumped at every change of the index, reported by search as `index_version`. */
  indexVersion: integer('index_version').notNull().default(0),
  /** The name the vectors are kept under when not the collection's own: a reindex's (collection_reindexes). */
  vectorIndex: text('vector_index'),
  createdAt: text('created_at').notNull().default(now),
  updatedAt: text('updated_at').notNull().default(now),
});

/**
 * Which chunk each vector key of a collection holds, with the text that was embedded and its sha256, so
 * that re-embedding skips chunks whose text did not change. The keyword index (FTS5 table `chunk_fts`,
 * created by a custom migration) mirrors `text` through triggers on this table.
 */
export const chunkVectors = sqliteTable(
  'chunk_vectors',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    collection: text('collection')
      .notNull()
      .references(() => collections.name, { onDelete: 'cascade' }),
    key: integer('key').notNull(),
    jobId: text('job_id')
      .notNull()
      .references(() => jobs.jobId, { onDelete: 'cascade' }),
    chunkId: text('chunk_id').notNull(),
    text: text('text').notNull(),
    textHash: text('text_hash').notNull(),
    /** The language the text is indexed in for full text (ISO 639-3, as detected; null: not known). */
    language: text('language'),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('chunk_vectors_key_idx').on(t.collection, t.key),
    uniqueIndex('chunk_vectors_chunk_idx').on(t.collection, t.jobId, t.chunkId),
    index('chunk_vectors_job_idx').on(t.jobId),
    // The languages a collection holds, read at each keyword search (a query's words are stemmed in them).
    index('chunk_vectors_language_idx').on(t.collection, t.language),
  ],
);

/**
 * Re-embeddings of a collection with another model: the new vectors go under `vector_index` while searches
 * keep reading the collection's own; the last step switches the collection to the model and that index at
 * once. At most one runs per collection. `drop_index` names an index still to be removed (the old one after
 * a switch, the partial one after a cancel or failure) until that is done.
 */
export const collectionReindexes = sqliteTable(
  'collection_reindexes',
  {
    reindexId: text('reindex_id').primaryKey(),
    collection: text('collection')
      .notNull()
      .references(() => collections.name, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    baseUrl: text('base_url'),
    model: text('model').notNull(),
    dimensions: integer('dimensions').notNull(),
    /** The collection's vector index when the reindex began (null: the collection's own name). */
    fromIndex: text('from_index'),
    vectorIndex: text('vector_index').notNull(),
    /** running | done | cancelled | failed */
    state: text('state').notNull(),
    chunksDone: integer('chunks_done').notNull().default(0),
    chunksTotal: integer('chunks_total').notNull().default(0),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    dropIndex: text('drop_index'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    finishedAt: text('finished_at'),
  },
  (t) => [
    uniqueIndex('collection_reindexes_running_idx')
      .on(t.collection)
      .where(sql`state = 'running'`),
    index('collection_reindexes_collection_idx').on(t.collection, t.createdAt),
  ],
);

/** Where each job's chunks are embedded; a job lives in one collection at a time. */
export const jobIndexes = sqliteTable('job_indexes', {
  jobId: text('job_id')
    .primaryKey()
    .references(() => jobs.jobId, { onDelete: 'cascade' }),
  collection: text('collection')
    .notNull()
    .references(() => collections.name, { onDelete: 'cascade' }),
  chunksEmbedded: integer('chunks_embedded').notNull().default(0),
  chunksTotal: integer('chunks_total').notNull().default(0),
  indexedAt: text('indexed_at'),
  updatedAt: text('updated_at').notNull().default(now),
});

/** Source of an answer as shown to the reader: a retrieved chunk with its label in the prompt. */
export interface ChatSourceRow {
  label: string;
  chunk_id: string;
  score: number;
  text: string;
  page_numbers: number[];
  section_path: string[];
}

/** A bot: a system prompt, answer settings and one vector collection of its own (`bot:<bot_id>`). */
export const bots = sqliteTable('bots', {
  botId: text('bot_id').primaryKey(),
  name: text('name'),
  promptTemplate: text('prompt_template').notNull(),
  llm: json<{ provider: string; model?: string; base_url?: string }>('llm').notNull(),
  embeddingModel: text('embedding_model').notNull(),
  topK: integer('top_k').notNull(),
  minSimilarity: real('min_similarity').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/** A cited source of a bot's answer, as the bots API reports it. */
export interface BotCitationRow {
  chunk_id: string;
  job_id: string;
  source: string;
  page_numbers: number[];
  quote: string;
}

/**
 * Named API keys (`lectern keys create`). Only the sha256 of the secret is kept: the secret is 32 random
 * bytes, so a fast hash is as safe as a slow one and lets the server find a key by one indexed lookup per
 * request. A name is unique among keys not revoked; a revoked key stays listed with when it was revoked.
 */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    keyId: text('key_id').primaryKey(),
    name: text('name').notNull(),
    /** reader | reviewer | admin */
    role: text('role').notNull(),
    /** Bots and jobs the key is limited to; both empty: everything. */
    scope: json<{ bots: string[]; jobs: string[] }>('scope').notNull(),
    hash: text('hash').notNull(),
    /** The secret's first characters, to tell keys apart in listings. */
    prefix: text('prefix').notNull(),
    createdAt: text('created_at').notNull(),
    revokedAt: text('revoked_at'),
    lastUsedAt: text('last_used_at'),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.hash), uniqueIndex('api_keys_name_idx').on(t.name).where(sql`revoked_at IS NULL`)],
);

/**
 * A conversation: questions and answers about one scope, a job's approved content (the jobs chat's
 * sessions), a bot's collection (a bot's chats, `kind` text or vision) or a named collection. Ids are the
 * session or chat ids the API has always given.
 */
export const conversations = sqliteTable(
  'conversations',
  {
    conversationId: text('conversation_id').primaryKey(),
    /** job | bot | collection */
    scope: text('scope').notNull(),
    jobId: text('job_id').references(() => jobs.jobId, { onDelete: 'cascade' }),
    botId: text('bot_id').references(() => bots.botId, { onDelete: 'cascade' }),
    collection: text('collection'),
    /** text, or vision: questions about attached images. */
    kind: text('kind').notNull().default('text'),
    title: text('title'),
    createdBy: text('created_by'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('conversations_job_idx').on(t.jobId), index('conversations_bot_idx').on(t.botId, t.createdAt)],
);

/** A cited source of an answer: a jobs-chat citation ({label, chunk_id, page_numbers}) or a bot's (BotCitationRow). */
export type MessageCitationRow = { label: string; chunk_id: string; page_numbers: number[] } | BotCitationRow;

/**
 * One question and its answer, in any conversation. `draft` is what the provider wrote; `answer` is what the
 * reader gets (the draft, a reviewer's edit, or nothing once rejected; JSON text for a schema answer). An
 * answer held for approval waits as `pending_review` under its `thread_id`. The words a person wrote or was
 * answered with (question, draft, answer, rating_note) are sealed at rest when encrypt_chats is on.
 */
export const messages = sqliteTable(
  'messages',
  {
    messageId: text('message_id').primaryKey(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.conversationId, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    question: text('question').notNull(),
    /** complete | pending_review | rejected | cancelled | failed */
    status: text('status').notNull(),
    draft: text('draft').notNull().default(''),
    answer: text('answer'),
    /** text | json (a schema answer) */
    answerFormat: text('answer_format').notNull().default('text'),
    notFound: integer('not_found', { mode: 'boolean' }).notNull().default(false),
    sources: json<ChatSourceRow[]>('sources').notNull().default([]),
    citations: json<MessageCitationRow[]>('citations').notNull().default([]),
    /** 'model' (the model's own markers, checked) or 'overlap' (attributed by shared words when it gave none). */
    citedBy: text('cited_by'),
    webSources: json<{ title: string; url: string; snippet: string }[]>('web_sources').notNull().default([]),
    /** A vision question's images: what they were and how much text the pool read from each. */
    images: json<{ name: string; media_type: string; sha256: string; bytes: number; text_chars: number }[]>('images').notNull().default([]),
    provider: text('provider').notNull(),
    model: text('model'),
    usage: json<Record<string, number>>('usage').notNull().default({}),
    error: json<{ code: string; message: string } | null>('error'),
    threadId: text('thread_id'),
    askedBy: text('asked_by'),
    reviewerAction: text('reviewer_action'),
    reviewerId: text('reviewer_id'),
    reviewedAt: text('reviewed_at'),
    /** A reader's verdict on the answer (up | down) and why; a down-rated answer is never learned from. */
    rating: text('rating'),
    ratingNote: text('rating_note'),
    /** The review job (`chat_training`) the pair was put in, and when its finalize made the bot learn it. */
    trainingJobId: text('training_job_id'),
    trainedAt: text('trained_at'),
    /** The caller's idempotency_key: a second request with it in the conversation gets this message's answer. */
    idempotencyKey: text('idempotency_key'),
    createdAt: text('created_at').notNull(),
    completedAt: text('completed_at'),
  },
  (t) => [
    uniqueIndex('messages_seq_idx').on(t.conversationId, t.seq),
    uniqueIndex('messages_thread_idx').on(t.threadId),
    uniqueIndex('messages_idempotency_idx').on(t.conversationId, t.idempotencyKey),
  ],
);
