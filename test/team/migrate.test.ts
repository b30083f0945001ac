import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/db.js';
import { json, listAll, listPage, repoRoot, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { ingest } from '../helpers/app.js';
import { extractiveBotChat, topicsRoot } from '../helpers/bot-flow.js';
import { chat } from '../helpers/chat-flow.js';
import { embedAndWait, startServerWithModel, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { lecternAsync, type CliRun } from '../helpers/keys-cli.js';
import { makeStructuredPdf } from '../helpers/make-pdf.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';

// `lectern migrate` as a person runs it (bin/lectern.js), between a desktop data folder written by the real
// server on SQLite and a team server's real PostgreSQL (scripts/team-services.sh), read back through the API.
const services = useTeamServices();
let admin: pg.Pool;
let made = 0;

async function freshDatabaseUrl(): Promise<string> {
  const name = `migrate_${process.pid}_${++made}`;
  return freshDatabase(services().env.LECTERN_DATABASE_URL, name, admin);
}

interface Library {
  jobId: string;
  botId: string;
  botJobId: string;
  sessionId: string;
  chatId: string;
  secret: string;
}

/** A desktop library with a reviewed, finalized and embedded PDF, a job chat, a bot with a document and a rated chat, and a key. */
async function buildDesktop(dataDir: string): Promise<Library> {
  const root = topicsRoot('lectern-migrate-docs-');
  const s = await startServerWithModel({ document_roots: [root] }, dataDir);
  try {
    const job = await ingest(s, 'report.pdf', await makeStructuredPdf());
    const blocks = await listAll(s, `/jobs/${job.job_id}/blocks`);
    const [b0, b1] = blocks as [Record<string, any>, Record<string, any>];
    const patch = (b: Record<string, any>, body: Record<string, unknown>) =>
      s.call('PATCH', `/jobs/${job.job_id}/blocks/${b.block_id}`, { json: { version: b.version, ...body } });
    expect(
      (await patch(b0, { edited_text: 'Corrected heading', status: 'edited', reviewer_note: 'typo' })).status,
    ).toBe(200);
    const rejected = await json(await patch(b1, { status: 'rejected' }));
    const undo = await s.call('POST', `/jobs/${job.job_id}/blocks/undo`, {
      json: {
        items: [{ block_id: b1.block_id, version: rejected.version, revision_id: rejected.current_revision_id }],
      },
    });
    expect(undo.status).toBe(200);
    expect(
      (await s.call('POST', `/jobs/${job.job_id}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } }))
        .status,
    ).toBe(200);
    expect((await embedAndWait(s, job.job_id)).job.status).toBe('indexed');
    const asked = await chat(s, {
      job_id: job.job_id,
      question: 'What does the report say?',
      llm_provider: 'extractive',
    });
    expect(asked.status).toBe(200);

    const { botId, chatId, documentJobId } = await extractiveBotChat(s, join(root, 'topics.md'));
    const answer = await json(
      await s.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query: 'What does chlorophyll capture?' } }),
    );
    expect(
      (
        await s.call('POST', `/chats/${chatId}/messages/${answer.message_id}/feedback`, {
          json: { rating: 'up', note: 'right' },
        })
      ).status,
    ).toBe(200);

    const key = await json(await s.call('POST', '/keys', { json: { name: 'desk', role: 'reader' } }));
    return {
      jobId: job.job_id,
      botId,
      botJobId: documentJobId,
      sessionId: asked.body.session_id,
      chatId,
      secret: key.secret,
    };
  } finally {
    await s.close();
  }
}

/** What the API says of the library: what must read the same on every store it is moved to. */
async function readLibrary(s: TestServer, l: Library) {
  const jobsOf = async (id: string) => {
    const job = await json(await s.call('GET', `/jobs/${id}`));
    return {
      job,
      blocks: await listAll(s, `/jobs/${id}/blocks`),
      chunks: await listAll(s, `/jobs/${id}/chunks`),
      audit: await listAll(s, `/jobs/${id}/audit`),
      pages: await listPage(s, `/jobs/${id}/pages`),
    };
  };
  const ids = (body: { results: { chunk_id: string }[] }) => body.results.map((r) => r.chunk_id);
  const search = async (body: Record<string, unknown>) =>
    ids(await json(await s.call('POST', '/search', { json: body })));
  const image = await s.call('GET', `/jobs/${l.jobId}/pages/1/image`);
  return {
    job: await jobsOf(l.jobId),
    botJob: await jobsOf(l.botJobId),
    search: {
      vector: await search({ job_id: l.jobId, query: 'results of the study', mode: 'vector', top_k: 5 }),
      keyword: await search({ job_id: l.jobId, query: 'introduction', mode: 'keyword', top_k: 5 }),
      bot: (
        await json(
          await s.call('POST', `/bots/${l.botId}/vectorstore`, {
            json: { query: 'how do plants make sugar', top_k: 3 },
          }),
        )
      ).documents.map((d: any) => d.metadata.chunk_id),
    },
    session: await json(await s.call('GET', `/chat/sessions/${l.sessionId}`)),
    bot: await json(await s.call('GET', `/bots/${l.botId}`)),
    botChat: await json(await s.call('GET', `/chats/${l.chatId}`)),
    // Without last_used_at: reading the library with the key (below) sets it.
    keys: (await json(await s.call('GET', '/keys'))).keys.map(
      ({ last_used_at: _, ...k }: Record<string, unknown>) => k,
    ),
    image: { status: image.status, bytes: Buffer.from(await image.arrayBuffer()).toString('base64').length },
    keyWorks: (await fetch(`${s.url}/jobs/${l.jobId}`, { headers: { 'x-api-key': l.secret } })).status,
  };
}

/** Runs `lectern migrate … --json`, expecting success; returns its report. */
async function migrate(args: string[]): Promise<any> {
  const r: CliRun = await lecternAsync(['migrate', ...args, '--json']);
  if (r.status !== 0) throw new Error(`lectern migrate exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
}

const everyTableAgrees = (report: any) => {
  expect(report.agree).toBe(true);
  for (const t of report.tables) expect(t.source.checksum, t.table).toBe(t.target.checksum);
};

beforeAll(() => {
  admin = new pg.Pool({ connectionString: services().env.LECTERN_DATABASE_URL, max: 2 });
});
afterAll(async () => {
  await admin?.end();
});

describe('lectern migrate', () => {
  it('moves a desktop library into a team server and back, ids, vectors and files unchanged, and a second run copies nothing', async () => {
    const desktopDir = tempDir('lectern-desktop-');
    const lib = await buildDesktop(desktopDir);
    const desktop = await startServer({ dataDir: desktopDir, settings: { embedding_model: TEST_MODEL } });
    const before = await readLibrary(desktop, lib);
    await desktop.close();
    expect(before.keyWorks).toBe(200);
    expect(before.search.vector.length).toBeGreaterThan(0);
    expect(before.job.audit.some((r: any) => r.action === 'undo')).toBe(true);

    const database_url = await freshDatabaseUrl();
    const teamDir = tempDir('lectern-team-');
    const first = await migrate(['--from-data-dir', desktopDir, '--database-url', database_url, '--data-dir', teamDir]);
    everyTableAgrees(first);
    const byTable = Object.fromEntries(first.tables.map((t: any) => [t.table, t]));
    for (const name of [
      'jobs',
      'pages',
      'blocks',
      'chunks',
      'revisions',
      'collections',
      'job_indexes',
      'chunk_vectors',
      'bots',
      'api_keys',
      'conversations',
      'messages',
    ]) {
      expect(byTable[name].copied, name).toBeGreaterThan(0);
      expect(byTable[name].skipped, name).toBe(0);
    }
    expect(first.vectors.every((v: any) => v.copied > 0 && v.skipped === 0 && v.absent === 0)).toBe(true);
    expect(first.files.copied).toBeGreaterThan(0);

    const again = await migrate(['--from-data-dir', desktopDir, '--database-url', database_url, '--data-dir', teamDir]);
    everyTableAgrees(again);
    expect(again.tables.every((t: any) => t.copied === 0 && t.skipped === t.source.rows)).toBe(true);
    expect(again.vectors.every((v: any) => v.copied === 0 && v.skipped > 0)).toBe(true);
    expect(again.files).toMatchObject({ copied: 0, skipped: first.files.copied });
    expect(again.tables.map((t: any) => t.target.checksum)).toEqual(first.tables.map((t: any) => t.target.checksum));

    // As a person reads it: a line per table with both checksums, and the verdict.
    const plain = await lecternAsync([
      'migrate',
      '--from-data-dir',
      desktopDir,
      '--database-url',
      database_url,
      '--data-dir',
      teamDir,
    ]);
    expect(plain.status, plain.stderr).toBe(0);
    const jobsLine = plain.stdout.split('\n').find((l) => l.startsWith('jobs '));
    const jobsRow = again.tables.find((t: any) => t.table === 'jobs');
    expect(jobsLine?.split(/\s+/)).toEqual([
      'jobs',
      '0',
      String(jobsRow.source.rows),
      jobsRow.source.checksum.slice(0, 16),
      jobsRow.source.checksum.slice(0, 16),
      'agree',
    ]);
    expect(plain.stderr).toContain('source and target agree on every table');

    const team = await startServerWithModel({ database_url }, teamDir);
    let afterJobId = '';
    try {
      expect(await readLibrary(team, lib)).toEqual(before);
      // The moved library goes on: a review and an embed on the team server number their revisions and
      // vector rows after the moved ones.
      const more = await ingest(team, 'after.md', new TextEncoder().encode(TOPICS_MD));
      const block = (await listAll(team, `/jobs/${more.job_id}/blocks`))[0]!;
      expect(
        (
          await team.call('PATCH', `/jobs/${more.job_id}/blocks/${block.block_id}`, {
            json: { version: block.version, reviewer_note: 'after the move' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await team.call('POST', `/jobs/${more.job_id}/finalize`, {
            json: { finalize_policy: 'auto_approve_pending' },
          })
        ).status,
      ).toBe(200);
      expect((await embedAndWait(team, more.job_id, { collection_name: `job-${lib.jobId}` })).job.status).toBe(
        'indexed',
      );
      afterJobId = more.job_id;
    } finally {
      await team.close();
    }

    const backDir = join(tempDir('lectern-back-'), 'desk');
    expect(afterJobId).not.toBe('');
    const back = await migrate(['--to-data-dir', backDir, '--database-url', database_url, '--data-dir', teamDir]);
    everyTableAgrees(back);
    const home = await startServerWithModel({}, backDir);
    try {
      expect(await readLibrary(home, lib)).toEqual(before);
      // The job added on the team server came back too, searchable in the collection it was embedded into.
      expect((await json(await home.call('GET', `/jobs/${afterJobId}`))).status).toBe('indexed');
      expect((await listAll(home, `/jobs/${afterJobId}/audit`)).map((r) => r.reviewer_note)).toContain(
        'after the move',
      );
      const hits = await json(
        await home.call('POST', '/search', {
          json: { collection_name: `job-${lib.jobId}`, query: 'Sicilian', mode: 'keyword' },
        }),
      );
      expect(hits.results.map((r: { job_id: string }) => r.job_id)).toContain(afterJobId);
    } finally {
      await home.close();
    }
  });

  it('refuses in one line: no database, a missing or foreign folder, a folder in use, a folder of a newer Lectern, wrong flags', async () => {
    const database_url = await freshDatabaseUrl();
    const run = (args: string[]) => lecternAsync(['migrate', ...args]);
    const expectRefusal = (r: CliRun, status: number, message: RegExp) => {
      expect(r.status, r.stderr).toBe(status);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    };
    const empty = tempDir('lectern-empty-');
    expectRefusal(
      await run(['--from-data-dir', empty]),
      2,
      /^lectern migrate: no team database is set.*--database-url/,
    );
    expectRefusal(
      await run(['--from-data-dir', join(empty, 'nope'), '--database-url', database_url]),
      1,
      /does not exist or is not a folder/,
    );
    expectRefusal(
      await run(['--from-data-dir', empty, '--database-url', database_url]),
      1,
      /is not a Lectern data folder \(it has no lectern\.db\)/,
    );
    writeFileSync(join(empty, 'notes.txt'), 'mine');
    expectRefusal(
      await run(['--to-data-dir', empty, '--database-url', database_url]),
      1,
      /neither empty nor a Lectern data folder/,
    );
    expectRefusal(await run(['--database-url', database_url]), 2, /give one of --from-data-dir/);
    expectRefusal(
      await run(['--from-data-dir', empty, '--to-data-dir', empty, '--database-url', database_url]),
      2,
      /give one of --from-data-dir/,
    );

    const busy = await startServer();
    try {
      expectRefusal(await run(['--from-data-dir', busy.dataDir, '--database-url', database_url]), 1, /in use by/);
    } finally {
      await busy.close();
    }

    const newer = tempDir('lectern-newer-');
    openDatabase(join(newer, 'lectern.db'), join(repoRoot, 'drizzle')).close();
    const db = new Database(join(newer, 'lectern.db'));
    db.prepare(
      `INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-version', 99999999999999)`,
    ).run();
    db.close();
    expectRefusal(await run(['--from-data-dir', newer, '--database-url', database_url]), 1, /newer version of Lectern/);
    // Nothing of the refused runs reached the database.
    const target = new pg.Client({ connectionString: database_url });
    await target.connect();
    try {
      const tables = await target.query(`SELECT to_regclass('jobs')::text AS t`);
      if (tables.rows[0].t) expect(Number((await target.query('SELECT count(*) AS n FROM jobs')).rows[0].n)).toBe(0);
    } finally {
      await target.end();
    }
  });
});
