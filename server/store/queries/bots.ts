/** The bots repository's column selections, the same on both backends. */
import { sql } from 'drizzle-orm';
import { columnsAs, type EitherTable } from './tables.js';

/** A job's columns as a `BotDocumentRecord`. */
export const documentColumns = <J extends EitherTable<'jobs'>>(j: J) =>
  columnsAs(j, {
    job_id: 'jobId',
    bot_id: 'botId',
    source_file: 'sourceFile',
    status: 'status',
    source: 'source',
    error_code: 'errorCode',
    created_at: 'createdAt',
  });

// Counted in the same statement as the bots they belong to, not one read per bot of a page. The outer
// column is named with its table: drizzle would write a bare "bot_id", which inside the subquery means its own.
export const documentCount = sql<number>`(SELECT COUNT(*) FROM jobs WHERE jobs.bot_id = bots.bot_id)`.mapWith(Number);
export const chatCount =
  sql<number>`(SELECT COUNT(*) FROM conversations WHERE conversations.bot_id = bots.bot_id)`.mapWith(Number);
