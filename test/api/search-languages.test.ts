/**
 * Keyword search finds words of Chinese, Japanese and German documents, as well as English ones, on the
 * store under test (LECTERN_TEST_STORE=postgres runs this file on the team store). A folder or database
 * whose full text an earlier version wrote (whole runs of Chinese characters as one token) finds its English
 * words before the upgrade and every language's after the next start.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { embedAndWait, finalizedJob, installTestModel, search, TEST_MODEL } from '../helpers/embed-flow.js';
import { storeCount } from '../helpers/server-db.js';
import { databaseFor } from '../helpers/test-database.js';
import { textTableName } from '../../server/store/postgres/collection-tables.js';

const DOCUMENTS = {
  // No heading is a search word: an index that keeps a run of characters whole would find a heading alone.
  zh: '# 研究报告\n\n我们研究机器学习的方法。深度神经网络可以从大量数据中自动提取特征。\n',
  ja: '# 研究紹介\n\n東京大学で自然言語処理を研究しています。毎日たくさんの論文を読みます。\n',
  de: '# Stadtplanung\n\n„Die alten Häuser“ am Fluss wurden um 1900 gebaut. Die Straße führt zum Marktplatz.\n',
  en: '# Chess openings\n\nThe Sicilian Defence answers the king pawn with the c-pawn.\n',
} as const;
type Lang = keyof typeof DOCUMENTS;

const COLLECTION = 'languages';
const dataDir = tempDir('lectern-languages-');
const jobs = {} as Record<Lang, string>;
let server: TestServer;

const start = async () => {
  server = await startServer({ dataDir, settings: { embedding_model: TEST_MODEL } });
};

beforeAll(async () => {
  await start();
  await installTestModel(dataDir);
  for (const lang of Object.keys(DOCUMENTS) as Lang[]) {
    const job = await finalizedJob(server, `${lang}.md`, DOCUMENTS[lang]);
    const { job: done } = await embedAndWait(server, job.job_id, { collection_name: COLLECTION });
    expect(done.status).toBe('indexed');
    jobs[lang] = job.job_id;
  }
});
afterAll(async () => server.close());

/** The languages of the documents a keyword search answers with, best first. */
async function keywordHits(query: string, mode = 'keyword'): Promise<Lang[]> {
  const res = await search(server, { collection_name: COLLECTION, query, mode, top_k: 10 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const langOf = new Map(Object.entries(jobs).map(([lang, id]) => [id, lang as Lang]));
  return res.body.results.map((r: { job_id: string }) => langOf.get(r.job_id));
}

/** Every language's words, as a user would type them, with the one document each must find alone. */
const CASES: [string, Lang[]][] = [
  ['机器学习', ['zh']],
  ['神经网络', ['zh']],
  ['方法', ['zh']],
  ['自然言語処理', ['ja']],
  ['論文', ['ja']],
  ['Häuser', ['de']],
  ['Hauser', ['de']],
  ['Straße', ['de']],
  ['Marktplatz', ['de']],
  ['Sicilian', ['en']],
  ['pawns', ['en']],
];

async function expectEveryLanguageFound(): Promise<void> {
  for (const [query, expected] of CASES) expect(await keywordHits(query), query).toEqual(expected);
  // A word both Chinese and Japanese write alike: both documents.
  expect((await keywordHits('研究')).sort()).toEqual(['ja', 'zh']);
  // Hybrid search ranks the keyword's document first too.
  expect((await keywordHits('机器学习', 'hybrid'))[0]).toBe('zh');
  expect((await keywordHits('自然言語処理', 'hybrid'))[0]).toBe('ja');
}

describe('keyword search in Chinese, Japanese, German and English', () => {
  it('finds each document by a word inside its sentences, on a job or the whole collection', async () => {
    await expectEveryLanguageFound();
    const onJob = await search(server, { job_id: jobs.zh, query: '我们研究机器学习', mode: 'keyword' });
    expect(onJob.status).toBe(200);
    expect(onJob.body).toMatchObject({
      mode: 'keyword',
      total: 1,
      results: [{ job_id: jobs.zh, text: expect.stringContaining('机器学习') }],
    });
    expect(onJob.body.results[0].scores.keyword).toBeGreaterThan(0);
    // Punctuation alone is no word: nothing to look for, nothing found.
    expect(
      (await search(server, { collection_name: COLLECTION, query: '。「」', mode: 'keyword' })).body,
    ).toMatchObject({ results: [], total: 0 });
  });

  it('finds them all after an upgrade from full text an earlier version wrote, which found only English words', async () => {
    await server.close();
    const url = await databaseFor(dataDir);
    if (url) await writePostgresTextTheOldWay(url);
    else writeSqliteTextTheOldWay(join(dataDir, 'lectern.db'));
    // As the earlier version had it: English found, a Chinese word inside a sentence not.
    expect(await oldIndexFinds(url, 'sicilian')).toBe(1);
    expect(await oldIndexFinds(url, '机器')).toBe(0);
    await start();
    await expectEveryLanguageFound();
  });
});

/** The SQLite full text as drizzle/0002_search_fts.sql made it, with this version's migration not yet applied. */
function writeSqliteTextTheOldWay(file: string): void {
  const db = new Database(file);
  try {
    const journal = JSON.parse(readFileSync(join(repoRoot, 'drizzle', 'meta', '_journal.json'), 'utf8')) as {
      entries: { tag: string; when: number }[];
    };
    const words = journal.entries.find((e) => e.tag === '0018_full_text_words')!;
    const old = readFileSync(join(repoRoot, 'drizzle', '0002_search_fts.sql'), 'utf8').split(
      '--> statement-breakpoint',
    );
    db.transaction(() => {
      for (const t of ['insert', 'delete', 'update']) db.exec(`DROP TRIGGER chunk_vectors_fts_${t}`);
      db.exec('DROP TABLE chunk_fts');
      for (const statement of old) db.exec(statement);
      db.exec(`INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')`);
      db.prepare('DELETE FROM __drizzle_migrations WHERE created_at = ?').run(words.when);
    })();
  } finally {
    db.close();
  }
}

/** The collection's tsvectors made from the text as it is, as the earlier version did, and its table unmarked. */
async function writePostgresTextTheOldWay(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t = `"${textTableName(COLLECTION)}"`;
    await client.query(
      `UPDATE ${t} x SET tsv = to_tsvector('english', cv.text) FROM chunk_vectors cv WHERE cv.id = x.id`,
    );
    await client.query(`COMMENT ON TABLE ${t} IS NULL`);
  } finally {
    await client.end();
  }
}

/** How many rows the stopped server's full text finds for one word, read in the store itself. */
async function oldIndexFinds(url: string | undefined, word: string): Promise<number> {
  if (!url) return storeCount(dataDir, 'SELECT count(*) AS n FROM chunk_fts WHERE chunk_fts MATCH ?', [`"${word}"`]);
  return storeCount(
    dataDir,
    `SELECT count(*) AS n FROM ${textTableName(COLLECTION)} WHERE tsv @@ to_tsquery('english', quote_literal(?))`,
    [word],
  );
}
