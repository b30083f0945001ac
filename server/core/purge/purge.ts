import { createHash } from 'node:crypto';
import type { ChunkView } from '../../store/repos/jobs-repo.js';
import type { Repositories, Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { findJob } from '../jobs/find-job.js';
import { redactQuotes, scrubContent, withoutBlockText } from './scrub.js';
import type { ChatCipher } from '../chat/chat-cipher.js';
import { createConversations } from '../conversations/conversations.js';

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
export function createPurge({ store, clock, cipher }: { store: Store; clock: Clock; cipher: ChatCipher }) {
  async function jobReady(tx: Repositories, jobId: string) {
    const job = await findJob(tx, jobId);
    if (BUSY.includes(job.status))
      throw new AppError('INVALID_STATE', `job ${jobId} is ${job.status}: purge once it is at rest`, {
        status: job.status,
      });
    return job;
  }

  /** Rewrites the job's revisions: the purged entity's own lose all content, others lose quotes of it. */
  async function scrubRevisions(
    tx: Repositories,
    jobId: string,
    entity: { type: 'block' | 'chunk'; id: string },
    texts: string[],
  ): Promise<void> {
    for (const r of await tx.revisions.all(jobId)) {
      const own = r.entity_type === entity.type && r.entity_id === entity.id;
      const fields = {
        before: r.before,
        after: r.after,
        original_text: r.original_text,
        edited_text: r.edited_text,
        reviewer_note: r.reviewer_note,
      };
      const next = own
        ? {
            before: scrubContent(r.before),
            after: scrubContent(r.after),
            original_text: null,
            edited_text: null,
            reviewer_note: null,
          }
        : redactQuotes(fields, texts);
      if (JSON.stringify(next) === JSON.stringify(fields)) continue;
      await tx.revisions.update(r.revision_id, next as typeof fields);
    }
  }

  /** Chat messages about the job keep sources' texts and answers that may quote the content. */
  async function scrubChats(tx: Repositories, jobId: string, texts: string[]): Promise<void> {
    // Through the conversations service: sealed answers (encrypt_chats) are opened to find the quotes and sealed again.
    const conversations = createConversations({ store: tx, cipher, clock });
    for (const m of await conversations.aboutJob(jobId)) {
      const was = { sources: m.sources, draft: m.draft, answer: m.answer };
      const next = redactQuotes(was, texts) as typeof was;
      if (JSON.stringify(next) !== JSON.stringify(was)) await conversations.update(m.message_id, next);
    }
  }

  /** Drops the chunks' vector rows (and with them their full-text entries); returns the vector keys to remove. */
  async function dropVectors(tx: Repositories, jobId: string, chunkIds: string[]): Promise<Map<string, number[]>> {
    const byCollection = new Map<string, number[]>();
    if (chunkIds.length === 0) return byCollection;
    const purged = new Set(chunkIds);
    const rows = (await tx.collections.vectorsOfJob(jobId)).filter((r) => purged.has(r.chunk_id));
    for (const r of rows) byCollection.set(r.collection, [...(byCollection.get(r.collection) ?? []), r.key]);
    if (rows.length)
      await tx.collections.replaceVectors(
        rows.map((r) => r.id),
        [],
      );
    await tx.collections.bumpVersions([...byCollection.keys()], isoNow(clock));
    return byCollection;
  }

  /** After the commit: the vectors leave the collections (search already cannot map their keys). */
  async function removeFromIndexes(byCollection: Map<string, number[]>): Promise<void> {
    for (const [name, keys] of byCollection) {
      const c = await store.collections.find(name);
      if (c) await store.search.vectors.write(c, { remove: keys });
    }
  }

  async function tombstoneChunk(
    tx: Repositories,
    jobId: string,
    c: ChunkView,
    by: string,
    why: string,
  ): Promise<string> {
    const text = c.edited_text ?? c.original_text;
    await tx.chunks.deleteMany(jobId, [c.chunk_id]);
    return tx.revisions.insert({
      job_id: jobId,
      entity_type: 'chunk',
      entity_id: c.chunk_id,
      previous_revision_id: c.current_revision_id,
      action: 'purged',
      before: {
        chunk_type: c.chunk_type,
        page_numbers: c.page_numbers,
        block_ids: c.block_ids,
        status: c.status,
        text_hash: hash16(text),
      },
      after: null,
      original_text: `[PURGED] text_hash=${hash16(text)} type=${c.chunk_type}`,
      reviewer_id: by,
      reviewer_note: `${NOTE}${why}`,
      timestamp: isoNow(clock),
    });
  }

  return {
    async chunk(jobId: string, chunkId: string, by: string) {
      const { tombstone, keys } = await store.transaction(async (tx) => {
        await jobReady(tx, jobId);
        const c = await tx.chunks.get(jobId, chunkId);
        if (!c) throw new AppError('CHUNK_NOT_FOUND', `chunk ${chunkId} does not exist in job ${jobId}`);
        const texts = [c.original_text, c.edited_text ?? ''].filter(Boolean);
        await scrubRevisions(tx, jobId, { type: 'chunk', id: chunkId }, texts);
        await scrubChats(tx, jobId, texts);
        const keys = await dropVectors(tx, jobId, [chunkId]);
        const tombstone = await tombstoneChunk(tx, jobId, c, by, '');
        await tx.jobs.recount(jobId, isoNow(clock));
        return { tombstone, keys };
      });
      await removeFromIndexes(keys);
      return { status: 'purged' as const, chunk_id: chunkId, tombstone_revision_id: tombstone };
    },

    async block(jobId: string, blockId: string, by: string) {
      const result = await store.transaction(async (tx) => {
        await jobReady(tx, jobId);
        const b = await tx.blocks.get(jobId, blockId);
        if (!b) throw new AppError('BLOCK_NOT_FOUND', `block ${blockId} does not exist in job ${jobId}`);
        const texts = [b.text, b.edited_text ?? ''].filter(Boolean);
        const holding = await tx.chunks.find(jobId, { block_id: blockId });
        const purgedChunks: string[] = [];
        const trimmedChunks: string[] = [];
        // Every chunk built from the block loses its vector: the vector was computed from the purged text too.
        const keys = await dropVectors(
          tx,
          jobId,
          holding.map((c) => c.chunk_id),
        );
        for (const c of holding) {
          const text = withoutBlockText(c.original_text, texts);
          const edited = c.edited_text === null ? null : withoutBlockText(c.edited_text, texts);
          if (!text || edited === undefined || edited === '') {
            await tombstoneChunk(tx, jobId, c, by, ` (it held purged block ${blockId})`);
            purgedChunks.push(c.chunk_id);
            continue;
          }
          await tx.chunks.update(jobId, c.chunk_id, {
            original_text: text,
            edited_text: edited,
            block_ids: c.block_ids.filter((id) => id !== blockId),
            version: c.version + 1,
            updated_at: isoNow(clock),
          });
          trimmedChunks.push(c.chunk_id);
        }
        const quoted = [...texts, ...holding.flatMap((c) => [c.original_text, c.edited_text ?? ''])];
        await scrubRevisions(tx, jobId, { type: 'block', id: blockId }, quoted);
        await scrubChats(tx, jobId, quoted);
        await tx.blocks.delete(jobId, blockId);
        const tombstone = await tx.revisions.insert({
          job_id: jobId,
          entity_type: 'block',
          entity_id: blockId,
          previous_revision_id: b.current_revision_id,
          action: 'purged',
          before: {
            type: b.type,
            page: b.page,
            status: b.status,
            text_hash: hash16(b.edited_text ?? b.text),
            chunks_purged: purgedChunks,
            chunks_trimmed: trimmedChunks,
          },
          after: null,
          original_text: `[PURGED] text_hash=${hash16(b.edited_text ?? b.text)} type=${b.type} page=${b.page}`,
          reviewer_id: by,
          reviewer_note: NOTE,
          timestamp: isoNow(clock),
        });
        const chunksLeft = (await tx.jobs.recount(jobId, isoNow(clock))).total_chunks;
        return { tombstone, keys, purgedChunks, trimmedChunks, chunksLeft };
      });
      await removeFromIndexes(result.keys);
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
