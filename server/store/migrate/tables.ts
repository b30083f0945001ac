/**
 * The tables `lectern migrate` copies, in an order in which every row's references are already there
 * (foreign keys: pages, blocks, chunks, revisions → jobs; chunk_vectors, job_indexes → collections and
 * jobs; conversations → jobs and bots; messages → conversations). The PostgreSQL schema mirrors the
 * SQLite one column for column (drizzle/pg/schema.ts), so a row read from one side is written to the other
 * as it is, under the same property names. The team server's task queue has no desktop counterpart. Reindex
 * records (collection_reindexes) are not copied: a collection comes over with the model and vector index it
 * has (collections.vector_index), and a reindex under way is left behind, to be started again on the target.
 */
import { getTableColumns, type Column } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as pg from '../../../drizzle/pg/schema.js';
import * as lite from '../../../drizzle/schema.js';

export interface MirroredTable {
  /** The table's name in both databases. */
  name: string;
  sqlite: SQLiteTable;
  pg: PgTable;
  /** The primary key's columns (property names), which say whether a row is already there. */
  key: readonly string[];
}

export const MIRRORED_TABLES: readonly MirroredTable[] = [
  { name: 'bots', sqlite: lite.bots, pg: pg.bots, key: ['botId'] },
  { name: 'jobs', sqlite: lite.jobs, pg: pg.jobs, key: ['jobId'] },
  { name: 'pages', sqlite: lite.pages, pg: pg.pages, key: ['jobId', 'page'] },
  { name: 'blocks', sqlite: lite.blocks, pg: pg.blocks, key: ['jobId', 'blockId'] },
  { name: 'chunks', sqlite: lite.chunks, pg: pg.chunks, key: ['jobId', 'chunkId'] },
  { name: 'revisions', sqlite: lite.revisions, pg: pg.revisions, key: ['revisionId'] },
  { name: 'collections', sqlite: lite.collections, pg: pg.collections, key: ['name'] },
  { name: 'job_indexes', sqlite: lite.jobIndexes, pg: pg.jobIndexes, key: ['jobId'] },
  { name: 'chunk_vectors', sqlite: lite.chunkVectors, pg: pg.chunkVectors, key: ['id'] },
  { name: 'api_keys', sqlite: lite.apiKeys, pg: pg.apiKeys, key: ['keyId'] },
  { name: 'conversations', sqlite: lite.conversations, pg: pg.conversations, key: ['conversationId'] },
  { name: 'messages', sqlite: lite.messages, pg: pg.messages, key: ['messageId'] },
];

/** The table's columns by property name, on either side. */
export const columnsOf = (table: SQLiteTable | PgTable): Record<string, Column> => getTableColumns(table);

/** The property names of a table's columns, in one order for both sides (the checksum's). */
export function columnNames(t: MirroredTable): string[] {
  const lite = Object.keys(columnsOf(t.sqlite)).sort();
  const pgNames = Object.keys(columnsOf(t.pg)).sort();
  // The mirror is kept by hand: a column on one side only would be dropped without a word, so refuse.
  if (lite.join() !== pgNames.join())
    throw new Error(`table ${t.name}: the SQLite and PostgreSQL schemas differ (${lite.join()} / ${pgNames.join()})`);
  return lite;
}

/**
 * Rows per batch: bounded by the columns a row binds (SQLite takes 32,766 parameters a statement,
 * PostgreSQL 65,535), at most 500 so a batch of long texts stays a few MB.
 */
export const batchRows = (t: MirroredTable): number => Math.min(500, Math.floor(30_000 / columnNames(t).length));
