/**
 * The one conversation model replaces the jobs chat's sessions and turns and the bots' chats and messages: a
 * database an earlier version wrote, with both, is migrated by drizzle's own migrator, and every session,
 * turn, chat and message reads back through the store with its ids, order, review, rating, training marks and
 * sealed texts as they were.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/db.js';
import { createSqliteStore } from '../../server/store/sqlite/sqlite-store.js';
import { removeDir, repoRoot, tempDir } from '../helpers/app.js';
import { migrationsBefore } from '../helpers/migrations.js';

const dir = tempDir('lectern-conversations-');
afterAll(() => removeDir(dir));

const T = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, '0')}.000Z`;

describe('the conversations migration', () => {
  it('moves both chat table pairs into conversations and messages, nothing lost, ids kept', async () => {
    const file = join(dir, 'lectern.db');
    const old = openDatabase(file, migrationsBefore('_conversations', dir));
    const run = (sql: string, ...args: unknown[]) => old.sqlite.prepare(sql).run(...args);
    run(
      `INSERT INTO jobs (job_id, status, source_file, format, file_hash, size_bytes, options) VALUES ('job1', 'indexed', 'a.md', 'markdown', 'h', 1, '{}')`,
    );
    run(
      `INSERT INTO bots (bot_id, prompt_template, llm, embedding_model, top_k, min_similarity, created_at, updated_at)
         VALUES ('bot1', 'p', '{"provider":"extractive"}', 'm', 5, 0.25, ?, ?)`,
      T(0),
      T(0),
    );
    run(
      `INSERT INTO chat_sessions (session_id, job_id, title, created_by, created_at, updated_at) VALUES ('s1', 'job1', 'Photosynthesis', 'ada', ?, ?)`,
      T(1),
      T(4),
    );
    const turn =
      old.sqlite.prepare(`INSERT INTO chat_turns (turn_id, session_id, seq, question, status, draft, answer, not_found, sources, citations,
      cited_by, provider, model, thread_id, asked_by, reviewer_action, reviewer_id, reviewed_at, usage, error, created_at, completed_at, idempotency_key)
      VALUES (?, 's1', ?, ?, ?, ?, ?, 0, ?, ?, 'model', 'extractive', NULL, ?, 'ada', ?, ?, ?, '{"total_ms":3}', NULL, ?, ?, ?)`);
    const sources = JSON.stringify([
      {
        label: 'S1',
        chunk_id: 'c1',
        score: 0.8,
        text: 'Leaves capture light.',
        page_numbers: [1],
        section_path: ['Intro'],
      },
    ]);
    const cites = JSON.stringify([{ label: 'S1', chunk_id: 'c1', page_numbers: [1] }]);
    turn.run(
      't1',
      1,
      'What do leaves capture?',
      'complete',
      'Light [S1].',
      'Light [S1].',
      sources,
      cites,
      null,
      null,
      null,
      null,
      T(2),
      T(2),
      'key-1',
    );
    turn.run(
      't2',
      2,
      'And then?',
      'complete',
      'Sugar.',
      'Sugar, edited.',
      sources,
      cites,
      'thread-9',
      'edit',
      'bob',
      T(4),
      T(3),
      T(4),
      null,
    );
    // A text sealed under encrypt_chats is moved as it is: it still opens with the key.
    turn.run(
      't3',
      3,
      'enc:v1:c2VhbGVk',
      'pending_review',
      'enc:v1:ZHJhZnQ=',
      null,
      '[]',
      '[]',
      'thread-10',
      null,
      null,
      null,
      T(5),
      null,
      null,
    );
    run(`INSERT INTO bot_chats (chat_id, bot_id, kind, created_at) VALUES ('c1', 'bot1', 'vision', ?)`, T(6));
    const message =
      old.sqlite.prepare(`INSERT INTO bot_messages (message_id, chat_id, seq, question, status, answer, answer_format, not_found, citations,
      web_sources, provider, model, usage, error, created_at, images, rating, rating_note, training_job_id, trained_at)
      VALUES (?, 'c1', ?, ?, 'complete', ?, ?, 0, ?, ?, 'extractive', NULL, '{}', NULL, ?, ?, ?, ?, ?, ?)`);
    const botCites = JSON.stringify([
      { chunk_id: 'c9', job_id: 'job1', source: 'a.md', page_numbers: [2], quote: 'Roots drink.' },
    ]);
    const web = JSON.stringify([{ title: 'Heat', url: 'https://example.org/heat', snippet: 'warm' }]);
    const images = JSON.stringify([
      { name: 'slide.png', media_type: 'image/png', sha256: 'abc', bytes: 10, text_chars: 4 },
    ]);
    message.run(
      'm1',
      1,
      'What is on the slide?',
      'Roots drink.',
      'text',
      botCites,
      web,
      T(7),
      images,
      'up',
      'good',
      'job1',
      T(9),
    );
    message.run('m2', 2, 'As JSON?', '{"a":1}', 'json', '[]', '[]', T(8), '[]', 'down', null, null, null);
    old.close();

    const now = openDatabase(file, join(repoRoot, 'drizzle'));
    const store = createSqliteStore(now);
    expect(
      now.sqlite
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('chat_sessions', 'chat_turns', 'bot_chats', 'bot_messages')`,
        )
        .all(),
    ).toEqual([]);
    expect(await store.conversations.get('s1')).toEqual({
      conversation_id: 's1',
      scope: 'job',
      job_id: 'job1',
      bot_id: null,
      collection: null,
      kind: 'text',
      title: 'Photosynthesis',
      created_by: 'ada',
      created_at: T(1),
      updated_at: T(4),
    });
    expect(await store.conversations.get('c1')).toEqual({
      conversation_id: 'c1',
      scope: 'bot',
      job_id: null,
      bot_id: 'bot1',
      collection: null,
      kind: 'vision',
      title: null,
      created_by: null,
      created_at: T(6),
      updated_at: T(8),
    });
    const turns = await store.conversations.messages('s1');
    expect(
      turns.map((t) => [
        t.message_id,
        t.seq,
        t.status,
        t.answer,
        t.thread_id,
        t.reviewer_action,
        t.reviewer_id,
        t.idempotency_key,
      ]),
    ).toEqual([
      ['t1', 1, 'complete', 'Light [S1].', null, null, null, 'key-1'],
      ['t2', 2, 'complete', 'Sugar, edited.', 'thread-9', 'edit', 'bob', null],
      ['t3', 3, 'pending_review', null, 'thread-10', null, null, null],
    ]);
    expect(turns[0]).toMatchObject({
      question: 'What do leaves capture?',
      draft: 'Light [S1].',
      sources: JSON.parse(sources),
      citations: JSON.parse(cites),
      cited_by: 'model',
      usage: { total_ms: 3 },
      asked_by: 'ada',
      completed_at: T(2),
    });
    expect(turns[2]).toMatchObject({ question: 'enc:v1:c2VhbGVk', draft: 'enc:v1:ZHJhZnQ=' });
    expect(await store.conversations.messageByThread('thread-9')).toMatchObject({ message_id: 't2' });
    expect(await store.conversations.messageByIdempotencyKey('s1', 'key-1')).toMatchObject({ message_id: 't1' });
    const msgs = await store.conversations.messages('c1', 'newest');
    expect(
      msgs.map((m) => [
        m.message_id,
        m.answer,
        m.answer_format,
        m.rating,
        m.rating_note,
        m.training_job_id,
        m.trained_at,
      ]),
    ).toEqual([
      ['m2', '{"a":1}', 'json', 'down', null, null, null],
      ['m1', 'Roots drink.', 'text', 'up', 'good', 'job1', T(9)],
    ]);
    expect(msgs[1]).toMatchObject({
      citations: JSON.parse(botCites),
      web_sources: JSON.parse(web),
      images: JSON.parse(images),
      draft: '',
    });
    expect(await store.lookups.botOfChat('c1')).toBe('bot1');
    expect(await store.lookups.jobOfChatSession('s1')).toBe('job1');
    expect(await store.lookups.botOfChat('s1')).toBeUndefined();
    expect(await store.conversations.countOf({ bot_id: 'bot1' })).toBe(1);
    expect((await store.conversations.listOf({ job_id: 'job1' })).map((c) => c.conversation_id)).toEqual(['s1']);
    now.close();
  });
});
