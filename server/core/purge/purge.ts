import { createHash } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { blocks, conversations, messages, chunks, chunkVectors, collections, jobs, revisions } from '../../../drizzle/schema.js';
import type { CollectionIndexes } from '../../store/collection-indexes.js';
import type { Db, DbLike } from '../../store/db.js';
import { writeRevision } from '../audit/revisions.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { findCollection } from '../indexing/collections.js';
import { redactQuotes, scrubContent, withoutBlockText } from './scrub.js';
import { openFields, sealFields, type ChatCipher } from '../chat/chat-cipher.js';

type ChunkRow = typeof chunks.$inferSelect;

/** While these run, a worker or the indexer writes the job's content: a purge then would race them. */
const BUSY = ['queued', 'processing', 'embedding'];
const NOTE = 'ADMIN PURGE: content permanently deleted';

const hash16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * Admin purges (LongParser's POST /jobs/{id}/blocks/{bid}/purge and /chunks/{cid}/purge): the content is
 * removed from everywhere Lectern keeps it (the block or chunk row, chunks built from the block, their
 * vectors and full-text entries, earlier revisions' texts and snapshots, chat turns that quoted it), and
 * one tombstone revision per removed item stays in the audit with a hash of the text, never the text.
 * The uploaded original is not rewritten: the export's copy of it still holds the text.
 */
export function createPurge({ db, indexes, clock, cipher }: { db: Db; indexes: CollectionIndexes; clock: Clock; cipher: ChatCipher }) {
  function jobReady(tx: DbLike, jobId: string) {
    const job = findJob(tx, jobId);
    if (BUSY.includes(job.status)) throw new AppError('INVALID_STATE', `job ${jobId} is ${job.status}: purge once it is at rest`, { status: job.status });
    return job;
  }

  /** Rewrites the job's revisions: the purged entity's own lose all content, others lose quotes of it. */
  function scrubRevisions(tx: DbLike, jobId: string, entity: { type: 'block' | 'chunk'; id: string }, texts: string[]): void {
    const rows = tx.select().from(revisions).where(eq(revisions.jobId, jobId)).all();
    for (const r of rows) {
      const own = r.entityType === entity.type && r.entityId === entity.id;
      const fields = { before: r.before, after: r.after, originalText: r.originalText, editedText: r.editedText, reviewerNote: r.reviewerNote };
      const next = own
        ? { before: scrubContent(r.before), after: scrubContent(r.after), originalText: null, editedText: null, reviewerNote: null }
        : (redactQuotes(fields, texts) as typeof fields);
      if (JSON.stringify(next) === JSON.stringify(fields)) continue;
      tx.update(revisions)
        .set(next as Partial<typeof revisions.$inferInsert>)
        .where(eq(revisions.revisionId, r.revisionId))
        .run();
    }
  }

  /** Chat turns about the job keep sources' texts and answers that may quote the content. */
  function scrubChats(tx: DbLike, jobId: string, texts: string[]): void {
    const turns = tx
      .select({ messageId: messages.messageId, sources: messages.sources, draft: messages.draft, answer: messages.answer })
      .from(messages)
      .innerJoin(conversations, eq(conversations.conversationId, messages.conversationId))
      .where(eq(conversations.jobId, jobId))
      .all();
    for (const sealed of turns) {
      // Sealed answers (encrypt_chats) are opened to find the quotes and sealed again.
      const t = openFields(cipher, sealed, ['draft', 'answer']);
      const next = redactQuotes({ sources: t.sources, draft: t.draft, answer: t.answer }, texts) as Pick<typeof t, 'sources' | 'draft' | 'answer'>;
      if (JSON.stringify(next) !== JSON.stringify({ sources: t.sources, draft: t.draft, answer: t.answer })) {
        tx.update(messages).set(sealFields(cipher, next, ['draft', 'answer'])).where(eq(messages.messageId, t.messageId)).run();
      }
    }
  }

  /** Drops the chunks' vector rows (and with them their full-text entries); returns the index keys to remove. */
  function dropVectors(tx: DbLike, jobId: string, chunkIds: string[]): Map<string, bigint[]> {
    const byCollection = new Map<string, bigint[]>();
    if (chunkIds.length === 0) return byCollection;
    const rows = tx
      .select({ id: chunkVectors.id, collection: chunkVectors.collection, key: chunkVectors.key })
      .from(chunkVectors)
      .where(and(eq(chunkVectors.jobId, jobId), inArray(chunkVectors.chunkId, chunkIds)))
      .all();
    for (const r of rows) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), BigInt(r.key)]);
    if (rows.length) tx.delete(chunkVectors).where(inArray(chunkVectors.id, rows.map((r) => r.id))).run();
    const now = isoNow(clock);
    for (const name of byCollection.keys()) {
      tx.update(collections).set({ indexVersion: sql`${collections.indexVersion} + 1`, updatedAt: now }).where(eq(collections.name, name)).run();
    }
    return byCollection;
  }

  /** After the commit: the vectors leave the index files (search already cannot map their keys). */
  function removeFromIndexes(byCollection: Map<string, bigint[]>): void {
    for (const [name, keys] of byCollection) {
      const c = findCollection(db, name);
      if (!c) continue;
      const index = indexes.get(c);
      index.remove(keys);
      index.save();
    }
  }

  function tombstoneChunk(tx: DbLike, jobId: string, c: ChunkRow, by: string, why: string): string {
    const text = c.editedText ?? c.text;
    tx.delete(chunks).where(and(eq(chunks.jobId, jobId), eq(chunks.chunkId, c.chunkId))).run();
    return writeRevision(tx, {
      jobId, entityType: 'chunk', entityId: c.chunkId, previousRevisionId: c.currentRevisionId, action: 'purged',
      before: { chunk_type: c.chunkType, page_numbers: c.pageNumbers, block_ids: c.blockIds, status: c.status, text_hash: hash16(text) },
      after: null,
      originalText: `[PURGED] text_hash=${hash16(text)} type=${c.chunkType}`,
      reviewerId: by, reviewerNote: `${NOTE}${why}`, timestamp: isoNow(clock),
    });
  }

  /** Sets the job's block and chunk totals; returns the chunks left. */
  function recount(tx: DbLike, jobId: string): number {
    const n = (t: typeof blocks | typeof chunks) => tx.select({ n: sql<number>`count(*)` }).from(t).where(eq(t.jobId, jobId)).get()?.n ?? 0;
    const totalChunks = n(chunks);
    tx.update(jobs).set({ totalBlocks: n(blocks), totalChunks, updatedAt: isoNow(clock) }).where(eq(jobs.jobId, jobId)).run();
    return totalChunks;
  }

  return {
    chunk(jobId: string, chunkId: string, by: string) {
      const { tombstone, keys } = db.transaction((tx) => {
        jobReady(tx, jobId);
        const c = tx.select().from(chunks).where(and(eq(chunks.jobId, jobId), eq(chunks.chunkId, chunkId))).get();
        if (!c) throw new AppError('CHUNK_NOT_FOUND', `chunk ${chunkId} does not exist in job ${jobId}`);
        const texts = [c.text, c.editedText ?? ''].filter(Boolean);
        scrubRevisions(tx, jobId, { type: 'chunk', id: chunkId }, texts);
        scrubChats(tx, jobId, texts);
        const keys = dropVectors(tx, jobId, [chunkId]);
        const tombstone = tombstoneChunk(tx, jobId, c, by, '');
        recount(tx, jobId);
        return { tombstone, keys };
      });
      removeFromIndexes(keys);
      return { status: 'purged' as const, chunk_id: chunkId, tombstone_revision_id: tombstone };
    },

    block(jobId: string, blockId: string, by: string) {
      const result = db.transaction((tx) => {
        jobReady(tx, jobId);
        const b = tx.select().from(blocks).where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, blockId))).get();
        if (!b) throw new AppError('BLOCK_NOT_FOUND', `block ${blockId} does not exist in job ${jobId}`);
        const texts = [b.text, b.editedText ?? ''].filter(Boolean);
        const holding = tx
          .select()
          .from(chunks)
          .where(and(eq(chunks.jobId, jobId), sql`EXISTS (SELECT 1 FROM json_each(${chunks.blockIds}) WHERE value = ${blockId})`))
          .all();
        const purgedChunks: string[] = [];
        const trimmedChunks: string[] = [];
        // Every chunk built from the block loses its vector: the vector was computed from the purged text too.
        const keys = dropVectors(tx, jobId, holding.map((c) => c.chunkId));
        for (const c of holding) {
          const text = withoutBlockText(c.text, texts);
          const edited = c.editedText === null ? null : withoutBlockText(c.editedText, texts);
          if (!text || edited === undefined || edited === '') {
            tombstoneChunk(tx, jobId, c, by, ` (it held purged block ${blockId})`);
            purgedChunks.push(c.chunkId);
            continue;
          }
          tx.update(chunks)
            .set({ text, editedText: edited, blockIds: c.blockIds.filter((id) => id !== blockId), version: c.version + 1, updatedAt: isoNow(clock) })
            .where(and(eq(chunks.jobId, jobId), eq(chunks.chunkId, c.chunkId)))
            .run();
          trimmedChunks.push(c.chunkId);
        }
        const quoted = [...texts, ...holding.flatMap((c) => [c.text, c.editedText ?? ''])];
        scrubRevisions(tx, jobId, { type: 'block', id: blockId }, quoted);
        scrubChats(tx, jobId, quoted);
        tx.delete(blocks).where(and(eq(blocks.jobId, jobId), eq(blocks.blockId, blockId))).run();
        const tombstone = writeRevision(tx, {
          jobId, entityType: 'block', entityId: blockId, previousRevisionId: b.currentRevisionId, action: 'purged',
          before: { type: b.type, page: b.page, status: b.status, text_hash: hash16(b.editedText ?? b.text), chunks_purged: purgedChunks, chunks_trimmed: trimmedChunks },
          after: null,
          originalText: `[PURGED] text_hash=${hash16(b.editedText ?? b.text)} type=${b.type} page=${b.page}`,
          reviewerId: by, reviewerNote: NOTE, timestamp: isoNow(clock),
        });
        const chunksLeft = recount(tx, jobId);
        return { tombstone, keys, purgedChunks, trimmedChunks, chunksLeft };
      });
      removeFromIndexes(result.keys);
      return {
        status: 'purged' as const,
        block_id: blockId,
        tombstone_revision_id: result.tombstone,
        chunks_purged: result.purgedChunks,
        chunks_trimmed: result.trimmedChunks,
        chunks_after_purge: result.chunksLeft,
      };
    },
  };
}
export type Purge = ReturnType<typeof createPurge>;
