import { describe, expect, it } from 'vitest';
import type { BotRecord } from '../../../server/store/repos/bots-repo.js';
import type { Store } from '../../../server/store/store.js';
import type { StoreFactory } from './harness.js';
import type { SeedsOf } from './seeds.js';

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const bot = (id: string, minute = 0, over: Partial<BotRecord> = {}): BotRecord => ({
  bot_id: id,
  name: `bot ${id}`,
  prompt_template: 'Answer from the documents.',
  llm: { provider: 'local', model: 'tiny' },
  embedding_model: 'embed-small',
  top_k: 5,
  min_similarity: 0.3,
  created_at: at(minute),
  updated_at: at(minute),
  ...over,
});

/** A bot's chat, made as the bots chat makes one. */
const chat = (store: Store, id: string, botId: string, minute: number) =>
  store.conversations.create({
    conversation_id: id,
    scope: 'bot',
    job_id: null,
    bot_id: botId,
    collection: null,
    kind: 'text',
    title: null,
    created_by: null,
    created_at: at(minute),
    updated_at: at(minute),
  });

export function botsContract(open: StoreFactory, seedsOf: SeedsOf): void {
  describe('bots', () => {
    it('inserts a bot and reads it back as stored; an unknown bot is null', async () => {
      const store = await open();
      const b = bot('a', 1, { name: null, llm: { provider: 'openai', base_url: 'http://127.0.0.1:9/v1' } });
      expect(await store.bots.insert(b)).toEqual(b);
      expect(await store.bots.get('a')).toEqual(b);
      expect(await store.bots.get('nope')).toBeNull();
    });

    it('lists bots newest first, a page at a time, each with its counts, and only the bots asked for', async () => {
      const store = await open();
      const seeds = seedsOf(store);
      for (const [id, minute] of [
        ['old', 1],
        ['mid', 2],
        ['new', 3],
      ] as const)
        await store.bots.insert(bot(id, minute));
      await seeds.job({ job_id: 'j1', bot_id: 'mid', status: 'queued', created_at: at(4) });
      await seeds.job({ job_id: 'j2', bot_id: 'mid', status: 'indexed', created_at: at(5) });
      await seeds.job({ job_id: 'j3', bot_id: null, status: 'queued', created_at: at(6) });
      await chat(store, 'c1', 'old', 7);

      const all = await store.bots.list({ skip: 0, limit: 10 }, null);
      expect(all.total).toBe(3);
      expect(all.items.map((b) => [b.bot_id, b.documents, b.chats])).toEqual([
        ['new', 0, 0],
        ['mid', 2, 0],
        ['old', 0, 1],
      ]);
      expect(all.items[0]).toEqual({ ...bot('new', 3), documents: 0, chats: 0 });

      const second = await store.bots.list({ skip: 1, limit: 1 }, null);
      expect(second).toMatchObject({ total: 3, skip: 1, limit: 1 });
      expect(second.items.map((b) => b.bot_id)).toEqual(['mid']);

      const scoped = await store.bots.list({ skip: 0, limit: 10 }, ['old', 'new', 'gone']);
      expect(scoped.total).toBe(2);
      expect(scoped.items.map((b) => b.bot_id)).toEqual(['new', 'old']);
      expect(await store.bots.list({ skip: 0, limit: 10 }, [])).toEqual({ items: [], total: 0, skip: 0, limit: 10 });
    });

    it("counts a bot's documents and chats", async () => {
      const store = await open();
      const seeds = seedsOf(store);
      await store.bots.insert(bot('a'));
      await store.bots.insert(bot('b'));
      await seeds.job({ job_id: 'j1', bot_id: 'a', status: 'failed', created_at: at(1) });
      await seeds.job({ job_id: 'j2', bot_id: 'b', status: 'queued', created_at: at(1) });
      await chat(store, 'c1', 'a', 2);
      await chat(store, 'c2', 'a', 3);
      expect(await store.bots.counts('a')).toEqual({ documents: 1, chats: 2 });
      expect(await store.bots.counts('none')).toEqual({ documents: 0, chats: 0 });
    });

    it("replaces a bot's instructions with the time of the change; an unknown bot is null", async () => {
      const store = await open();
      await store.bots.insert(bot('a', 1));
      expect(await store.bots.setPrompt('a', 'Be brief.', at(9))).toEqual({
        ...bot('a', 1),
        prompt_template: 'Be brief.',
        updated_at: at(9),
      });
      expect((await store.bots.get('a'))?.prompt_template).toBe('Be brief.');
      expect(await store.bots.setPrompt('nope', 'x', at(9))).toBeNull();
    });

    it('deletes a bot with its chats and their messages, and says whether there was one', async () => {
      const store = await open();
      await store.bots.insert(bot('a'));
      await store.bots.insert(bot('b'));
      await chat(store, 'c1', 'a', 1);
      await chat(store, 'c2', 'b', 1);
      await store.conversations.addMessage({
        message_id: 'm1',
        conversation_id: 'c1',
        question: 'q',
        status: 'complete',
        provider: 'extractive',
        created_at: at(2),
      });
      expect(await store.bots.delete('a')).toBe(true);
      expect(await store.bots.get('a')).toBeNull();
      expect(await store.conversations.get('c1')).toBeNull();
      expect(await store.conversations.message('m1')).toBeNull();
      expect(await store.conversations.get('c2')).not.toBeNull();
      expect(await store.bots.delete('a')).toBe(false);
      expect(await store.bots.get('b')).not.toBeNull();
    });

    it("reads a bot's documents newest first, one document by its job, and every bot document", async () => {
      const store = await open();
      const seeds = seedsOf(store);
      await store.bots.insert(bot('a'));
      await store.bots.insert(bot('b'));
      const source = { kind: 'link' as const, review: false, url: 'https://example.org/a', sha256: 'f'.repeat(64) };
      await seeds.job({ job_id: 'j-old', bot_id: 'a', status: 'indexed', source, created_at: at(1) });
      await seeds.job({
        job_id: 'j-new',
        bot_id: 'a',
        status: 'queued',
        source: { kind: 'path', review: true, path: '/docs/x.md' },
        created_at: at(2),
      });
      await seeds.job({ job_id: 'j-b', bot_id: 'b', status: 'queued', created_at: at(3) });
      await seeds.job({ job_id: 'j-none', bot_id: null, status: 'queued', created_at: at(4) });

      const docs = await store.bots.documents('a');
      expect(docs.map((d) => d.job_id)).toEqual(['j-new', 'j-old']);
      expect(docs[1]).toEqual({
        job_id: 'j-old',
        bot_id: 'a',
        source_file: 'j-old.md',
        status: 'indexed',
        source,
        error_code: null,
        created_at: at(1),
      });
      expect(await store.bots.documents('none')).toEqual([]);

      expect(await store.bots.document('j-b')).toMatchObject({
        job_id: 'j-b',
        bot_id: 'b',
        status: 'queued',
        source: null,
      });
      expect(await store.bots.document('j-none')).toBeNull();
      expect(await store.bots.document('nope')).toBeNull();
      expect((await store.bots.allDocumentIds()).sort()).toEqual(['j-b', 'j-new', 'j-old']);
    });

    it("finds a bot's live document by its content, never a failed or cancelled one nor another bot's", async () => {
      const store = await open();
      const seeds = seedsOf(store);
      await store.bots.insert(bot('a'));
      await store.bots.insert(bot('b'));
      await seeds.job({ job_id: 'failed', bot_id: 'a', status: 'failed', file_hash: 'h1', created_at: at(1) });
      await seeds.job({ job_id: 'cancelled', bot_id: 'a', status: 'cancelled', file_hash: 'h1', created_at: at(2) });
      await seeds.job({ job_id: 'other-bot', bot_id: 'b', status: 'indexed', file_hash: 'h2', created_at: at(3) });
      expect(await store.bots.liveDocumentWithHash('a', 'h1')).toBeNull();
      expect(await store.bots.liveDocumentWithHash('a', 'h2')).toBeNull();
      await seeds.job({ job_id: 'live', bot_id: 'a', status: 'processing', file_hash: 'h1', created_at: at(4) });
      expect(await store.bots.liveDocumentWithHash('a', 'h1')).toBe('live');
      expect(await store.bots.liveDocumentWithHash('b', 'h2')).toBe('other-bot');
    });

    it('records why a document did not reach its index only while it is finalized', async () => {
      const store = await open();
      const seeds = seedsOf(store);
      await store.bots.insert(bot('a'));
      await seeds.job({ job_id: 'fin', bot_id: 'a', status: 'finalized', created_at: at(1) });
      await seeds.job({ job_id: 'idx', bot_id: 'a', status: 'indexed', created_at: at(2) });
      expect(await store.bots.recordIndexFailure('fin', { code: 'MODEL_NOT_FOUND', message: 'no such model' })).toBe(
        true,
      );
      expect((await store.bots.document('fin'))?.error_code).toBe('MODEL_NOT_FOUND');
      expect(await store.bots.recordIndexFailure('idx', { code: 'X', message: 'y' })).toBe(false);
      expect((await store.bots.document('idx'))?.error_code).toBeNull();
      expect(await store.bots.recordIndexFailure('nope', { code: 'X', message: 'y' })).toBe(false);
    });

    it("reads a document's blocks in reading order", async () => {
      const store = await open();
      const seeds = seedsOf(store);
      await store.bots.insert(bot('a'));
      await seeds.job({ job_id: 'j', bot_id: 'a', status: 'ready_for_review', created_at: at(1) });
      await seeds.block({
        job_id: 'j',
        block_id: 'b2',
        order_index: 2,
        type: 'paragraph',
        text: 'second',
        status: 'approved',
      });
      await seeds.block({
        job_id: 'j',
        block_id: 'b1',
        order_index: 1,
        type: 'heading',
        text: 'Q1. first',
        status: 'pending',
      });
      await seeds.block({
        job_id: 'j',
        block_id: 'b3',
        order_index: 3,
        type: 'paragraph',
        text: 'third',
        status: 'rejected',
      });
      expect(await store.bots.documentBlocks('j')).toEqual([
        { type: 'heading', text: 'Q1. first', status: 'pending' },
        { type: 'paragraph', text: 'second', status: 'approved' },
        { type: 'paragraph', text: 'third', status: 'rejected' },
      ]);
      expect(await store.bots.documentBlocks('nope')).toEqual([]);
    });
  });
}
