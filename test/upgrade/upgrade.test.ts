import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, repoRoot, serverClient, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { installTestModel } from '../helpers/embed-flow.js';
import { lecternDone } from '../helpers/pty.js';
import { differences, type KnownChange } from './compare.js';
import { PUMP_MANUAL_MD } from './fixture-documents.js';
import { readEverything, type FixtureQueries } from './read-back.js';

// A data folder written by an earlier version (test/fixtures/upgrade/, made by make-fixture.ts: jobs in every
// state of review, job chat sessions and bot chats stored plain and sealed, ratings, a learned chat, a vision
// chat, named keys, two vector collections) opens with the current server: everything a client can read
// reads back as the earlier version answered it, a second start migrates nothing, and the old data keeps
// working (keys, ratings, a held answer, duplicate detection, follow-up questions).

interface Setup {
  made_by: { commit: string };
  service_key: string;
  settings: Record<string, unknown>;
  keys: { widget: string; desk: string; auditor: string };
  ids: {
    field_guide: string;
    report: string;
    bot: string;
    bot_document: string;
    chats: { liked_and_disliked: string };
  };
  pending_turn: { session_id: string; thread_id: string; turn_id: string };
  trainable: string[];
  queries: FixtureQueries;
}

const fixtureDir = join(repoRoot, 'test', 'fixtures', 'upgrade');
const setup = JSON.parse(readFileSync(join(fixtureDir, 'setup.json'), 'utf8')) as Setup;
const expected: unknown = JSON.parse(readFileSync(join(fixtureDir, 'expected.json'), 'utf8'));

/** The API's deliberate changes since the fixture's version. */
const CHANGES: KnownChange[] = [
  {
    key: 'indent_level',
    from: null,
    to: 0,
    why: "a block's indent_level is an integer, 0 at the top level, as LongParser has it",
  },
];

let dataDir = '';
let root = '';
let server: TestServer | undefined;
let migrated: unknown[] = [];

/** The migrations table as it is on disk (read-only; the server is the folder's only writer). */
function migrations(): unknown[] {
  const db = new Database(join(dataDir, 'lectern.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT id, hash, created_at FROM __drizzle_migrations ORDER BY id').all();
  } finally {
    db.close();
  }
}

async function start(): Promise<TestServer> {
  await server?.close();
  // document_roots: the fixture's folder was a scratch one; the same document is written into this one.
  server = await startServer({
    dataDir,
    key: setup.service_key,
    settings: { ...setup.settings, document_roots: [root] },
  });
  return server;
}

beforeAll(async () => {
  dataDir = tempDir('lectern-upgrade-');
  cpSync(join(fixtureDir, 'data'), dataDir, { recursive: true });
  root = tempDir('lectern-upgrade-roots-');
  writeFileSync(join(root, 'pump-manual.md'), PUMP_MANUAL_MD);
  await installTestModel(dataDir);
});
afterAll(async () => server?.close());

describe(`a data folder written by ${setup.made_by.commit.slice(0, 7)}`, () => {
  it('opens with every job, block, chunk, revision, page, export, chat turn, bot message, key and search result reading back as before', async () => {
    const before = migrations();
    expect(before.length).toBeGreaterThan(0);
    const s = await start();
    expect(differences(expected, await readEverything(s, setup.queries), CHANGES)).toEqual([]);
    migrated = migrations();
    // The earlier version's migrations stay as they were; only new ones may follow them.
    expect(migrated.slice(0, before.length)).toEqual(before);
  });

  it('runs no migration at a second start, and still reads the same', async () => {
    const s = await start();
    expect(migrations()).toEqual(migrated);
    expect(differences(expected, await readEverything(s, setup.queries), CHANGES)).toEqual([]);
  });

  it('keeps working on the old data: keys and their scopes, ratings, a held answer, duplicates, follow-ups in plain and sealed chats', async () => {
    const s = server!;
    // Keys: the scoped ones see what they saw, the revoked one is refused.
    const widget = serverClient(s.url, setup.keys.widget);
    const bots = await json(await widget.call('GET', '/bots'));
    expect(bots.items.map((b: { bot_id: string }) => b.bot_id)).toEqual([setup.ids.bot]);
    const auditor = serverClient(s.url, setup.keys.auditor);
    expect((await json(await auditor.call('GET', '/jobs'))).jobs.map((j: { job_id: string }) => j.job_id)).toEqual([
      setup.ids.field_guide,
    ]);
    expect((await auditor.call('GET', `/jobs/${setup.ids.report}`)).status).toBe(404);
    expect((await serverClient(s.url, setup.keys.desk).call('GET', '/jobs')).status).toBe(401);

    // Ratings and training: the learned answer and the down-rated ones are not offered again, the rest are, in order.
    const training = await json(await s.call('POST', `/bots/${setup.ids.bot}/train-chats`));
    expect(training.pairs).toBe(setup.trainable.length);
    // Each pair's record starts with its chat and message ids (answers may run over several lines).
    const csv = readFileSync(training.csv_path as string, 'utf8');
    expect([...csv.matchAll(/^"[0-9a-f-]{36}","([0-9a-f-]{36})",/gm)].map((m) => m[1])).toEqual(setup.trainable);

    // The answer held for approval before the upgrade is resumed once.
    const { session_id, thread_id, turn_id } = setup.pending_turn;
    const resumed = await s.call('POST', '/chat/resume', {
      json: { session_id, thread_id, action: 'approve' },
      headers: { 'x-reviewer': 'dora' },
    });
    expect(resumed.status).toBe(200);
    expect(await json(resumed)).toMatchObject({
      turn_id,
      status: 'complete',
      review: { action: 'approve', reviewer_id: 'dora' },
    });
    expect((await s.call('POST', '/chat/resume', { json: { session_id, thread_id, action: 'approve' } })).status).toBe(
      409,
    );

    // Follow-ups in a session and a bot chat that hold plain and sealed turns: the history is read, the answer stored.
    const [plainSession] = setup.queries.sessions;
    const followUp = await json(
      await s.call('POST', '/chat', {
        json: { session_id: plainSession, question: 'And what does the crust do?', llm_provider: 'extractive' },
      }),
    );
    expect(followUp.status).toBe('complete');
    const session = await json(await s.call('GET', `/chat/sessions/${plainSession}`));
    expect(session.turns.at(-1)).toMatchObject({ turn_id: followUp.turn_id, question: 'And what does the crust do?' });
    const chatId = setup.ids.chats.liked_and_disliked;
    const asked = await s.call('POST', `/bots/${setup.ids.bot}/chats/${chatId}`, {
      json: { query: 'How do I prime the pump?' },
    });
    expect(asked.status).toBe(200);
    const history = await json(await s.call('GET', `/chats/${chatId}`));
    expect(history.messages.at(-1)).toMatchObject({
      message_id: (await json(asked)).message_id,
      question: 'How do I prime the pump?',
    });

    // The bot still knows the content of its document: adding it again is a duplicate of the same job.
    const again = await json(
      await s.call('POST', `/bots/${setup.ids.bot}/documents/path`, { json: { path: join(root, 'pump-manual.md') } }),
    );
    expect(again).toMatchObject({ status: 'duplicate', job_id: setup.ids.bot_document });
  });

  it('is refused, untouched, by a version older than the one that last migrated it', async () => {
    await server?.close();
    server = undefined;
    const newer = tempDir('lectern-upgrade-newer-');
    cpSync(dataDir, newer, { recursive: true });
    const file = join(newer, 'lectern.db');
    const db = new Database(file);
    db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(
      'a later version',
      Date.UTC(2100, 0, 1),
    );
    db.close();
    const sha = () => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = sha();
    const refused = await lecternDone(['serve', '--data-dir', newer, '-p', '0'], { cwd: newer });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `lectern serve: ${file} was written by a newer version of Lectern than this one (hint: start the newer version of Lectern that last opened it; a library is never migrated backwards)`,
    );
    expect(sha()).toBe(before);
  });
});
