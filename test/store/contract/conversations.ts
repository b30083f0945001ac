import { describe, expect, it } from 'vitest';
import type { ConversationRecord } from '../../../server/store/repos/conversations-repo.js';
import type { StoreFactory } from './harness.js';

const at = (s: number) => `2026-02-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const conversation = (id: string, over: Partial<ConversationRecord> = {}): ConversationRecord => ({
  conversation_id: id,
  scope: 'collection',
  job_id: null,
  bot_id: null,
  collection: 'library',
  kind: 'text',
  title: null,
  created_by: 'ada',
  created_at: at(0),
  updated_at: at(0),
  ...over,
});
const message = (conversationId: string, id: string, second: number) => ({
  message_id: id,
  conversation_id: conversationId,
  question: `question ${id}`,
  status: 'complete' as const,
  provider: 'extractive',
  created_at: at(second),
});

/** The message columns a new message leaves null, in the table's order. */
const NULL_UNTIL_SET = [
  'answer',
  'cited_by',
  'model',
  'error',
  'thread_id',
  'asked_by',
  'reviewer_action',
  'reviewer_id',
  'reviewed_at',
  'rating',
  'rating_note',
  'training_job_id',
  'trained_at',
  'idempotency_key',
  'completed_at',
] as const;

export function conversationsContract(open: StoreFactory): void {
  describe('conversations', () => {
    it('creates, reads, renames and deletes a conversation with its messages', async () => {
      const store = await open();
      const c = conversation('conv-1');
      expect(await store.conversations.create(c)).toEqual(c);
      expect(await store.conversations.get('conv-1')).toEqual(c);
      expect(await store.conversations.get('nope')).toBeNull();
      expect(await store.conversations.rename('conv-1', 'Photosynthesis', at(3))).toEqual({
        ...c,
        title: 'Photosynthesis',
        updated_at: at(3),
      });
      expect(await store.conversations.rename('nope', 'x', at(3))).toBeNull();
      await store.conversations.addMessage(message('conv-1', 'm-1', 4));
      expect(await store.conversations.delete('conv-1')).toBe(true);
      expect(await store.conversations.get('conv-1')).toBeNull();
      expect(await store.conversations.message('m-1')).toBeNull();
      expect(await store.conversations.delete('conv-1')).toBe(false);
    });

    it('appends messages in order with defaults, and marks the conversation updated', async () => {
      const store = await open();
      await store.conversations.create(conversation('conv-2'));
      const first = await store.conversations.addMessage(message('conv-2', 'a', 1));
      expect(first).toEqual({
        message_id: 'a',
        conversation_id: 'conv-2',
        seq: 1,
        question: 'question a',
        status: 'complete',
        draft: '',
        answer_format: 'text',
        not_found: false,
        sources: [],
        citations: [],
        web_sources: [],
        images: [],
        provider: 'extractive',
        usage: {},
        created_at: at(1),
        // Every other column starts null: nothing answered, reviewed, rated or trained on yet.
        ...Object.fromEntries(NULL_UNTIL_SET.map((column) => [column, null])),
      });
      const second = await store.conversations.addMessage({
        ...message('conv-2', 'b', 2),
        answer: '{"x":1}',
        answer_format: 'json',
        usage: { total_ms: 5 },
        error: { code: 'X', message: 'y' },
        idempotency_key: 'k',
        thread_id: 't-b',
      });
      expect(second).toMatchObject({
        seq: 2,
        answer: '{"x":1}',
        answer_format: 'json',
        usage: { total_ms: 5 },
        error: { code: 'X', message: 'y' },
      });
      expect((await store.conversations.messages('conv-2')).map((m) => m.message_id)).toEqual(['a', 'b']);
      expect((await store.conversations.messages('conv-2', 'newest')).map((m) => m.message_id)).toEqual(['b', 'a']);
      expect((await store.conversations.get('conv-2'))?.updated_at).toBe(at(2));
      expect(await store.conversations.messageByIdempotencyKey('conv-2', 'k')).toMatchObject({ message_id: 'b' });
      expect(await store.conversations.messageByIdempotencyKey('conv-2', 'other')).toBeNull();
      expect(await store.conversations.messageByThread('t-b')).toMatchObject({ message_id: 'b' });
      expect(await store.conversations.messageCounts(['conv-2', 'nope'])).toEqual(
        new Map([
          ['conv-2', 2],
          ['nope', 0],
        ]),
      );
      expect(await store.conversations.messageCounts([])).toEqual(new Map());
      await expect(
        store.conversations.addMessage({ ...message('conv-2', 'c', 3), idempotency_key: 'k' }),
      ).rejects.toThrow();
    });

    it('changes a held answer only while it is still held', async () => {
      const store = await open();
      await store.conversations.create(conversation('conv-3'));
      await store.conversations.addMessage({
        ...message('conv-3', 'held', 1),
        status: 'pending_review',
        draft: 'draft',
        thread_id: 'th',
      });
      const resolve = {
        status: 'complete' as const,
        answer: 'edited',
        reviewer_action: 'edit' as const,
        reviewer_id: 'bob',
        reviewed_at: at(5),
        completed_at: at(5),
      };
      expect(await store.conversations.updateMessage('held', resolve, 'pending_review')).toBe(true);
      expect(await store.conversations.updateMessage('held', { ...resolve, answer: 'again' }, 'pending_review')).toBe(
        false,
      );
      expect(await store.conversations.message('held')).toMatchObject({
        status: 'complete',
        answer: 'edited',
        draft: 'draft',
        reviewer_id: 'bob',
      });
      expect(await store.conversations.updateMessage('held', { rating: 'up', rating_note: 'fine' })).toBe(true);
      expect(await store.conversations.message('held')).toMatchObject({
        rating: 'up',
        rating_note: 'fine',
        answer: 'edited',
      });
    });

    it('marks several messages at once, and marks trained only those still in that training job', async () => {
      const store = await open();
      await store.conversations.create(conversation('conv-4'));
      for (const [id, s] of [
        ['x', 1],
        ['y', 2],
        ['z', 3],
      ] as const)
        await store.conversations.addMessage(message('conv-4', id, s));
      expect(await store.conversations.updateMessages(['x', 'y'], { training_job_id: 'job-a' })).toBe(2);
      expect(await store.conversations.updateMessages(['x', 'y', 'z'], { trained_at: at(9) }, 'job-a')).toBe(2);
      expect(await store.conversations.updateMessages(['x'], { trained_at: at(10) }, 'job-a')).toBe(0);
      expect(
        (await store.conversations.messages('conv-4')).map((m) => [m.message_id, m.training_job_id, m.trained_at]),
      ).toEqual([
        ['x', 'job-a', at(9)],
        ['y', 'job-a', at(9)],
        ['z', null, null],
      ]);
      expect(await store.conversations.updateMessages([], { trained_at: at(11) })).toBe(0);
    });
  });
}
