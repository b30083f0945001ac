/**
 * Keyword search finds words of Chinese, Japanese, German and French documents, as well as English ones, on
 * the store under test (LECTERN_TEST_STORE=postgres runs this file on the team store); German and French words
 * also by their other forms, stemmed in the document's detected language. A folder or database whose full text
 * an earlier version wrote (whole runs of Chinese characters as one token; words without stems) finds what that
 * version found before the upgrade, and every language's words and forms after the next start.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import {
  type EarlierFullText,
  writePostgresFullTextAsEarlier,
  writeSqliteFullTextAsEarlier,
} from '../helpers/earlier-full-text.js';
import { embedAndWait, finalizedJob, installTestModel, search, TEST_MODEL } from '../helpers/embed-flow.js';
import { storeCount, storeRows } from '../helpers/server-db.js';
import { databaseFor } from '../helpers/test-database.js';
import { textTableName } from '../../server/store/postgres/collection-tables.js';
import { fullTextWords } from '../../server/store/full-text-words.js';

const DOCUMENTS = {
  // No heading is a search word: an index that keeps a run of characters whole would find a heading alone.
  zh: '# 研究报告\n\n我们研究机器学习的方法。深度神经网络可以从大量数据中自动提取特征。\n',
  ja: '# 研究紹介\n\n東京大学で自然言語処理を研究しています。毎日たくさんの論文を読みます。\n',
  de: '# Stadtplanung\n\n„Die alten Häuser“ am Fluss wurden um 1900 gebaut. Die Straße führt zum Marktplatz. In den Häusern wohnen Familien mit vielen Kindern, und jede Familie hat ein Buch über die Geschichte der Stadt.\n',
  fr: '# Campagne\n\nLes chevaux du village mangent dans les prés près de la rivière. Le journal du matin parle des fermiers et de leurs maisons anciennes.\n',
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

/**
 * Words found only through their stem in the document's language, with the document each finds: in each
 * language a query of the base form finds a text holding an inflected one, and the other way round.
 */
const STEM_CASES: [string, Lang][] = [
  ['Haus', 'de'], // Häuser, Häusern
  ['Kind', 'de'], // Kindern
  ['Büchern', 'de'], // Buch
  ['cheval', 'fr'], // chevaux
  ['maison', 'fr'], // maisons
  ['journaux', 'fr'], // journal
];

/** The documents' languages as detected when they were read: what their chunks are stemmed in. */
const DETECTED: Partial<Record<Lang, string>> = { de: 'deu', fr: 'fra', en: 'eng' };

/** The words of a text as the indexes compare them (lower case, diacritics folded). */
const wordsOf = (text: string) =>
  new Set(
    fullTextWords(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu),
  );

async function expectEveryLanguageFound(): Promise<void> {
  for (const [query, expected] of CASES) expect(await keywordHits(query), query).toEqual(expected);
  for (const [query, lang] of STEM_CASES) expect(await keywordHits(query), query).toEqual([lang]);
  // A word both Chinese and Japanese write alike: both documents.
  expect((await keywordHits('研究')).sort()).toEqual(['ja', 'zh']);
  // Hybrid search ranks the keyword's document first too.
  expect((await keywordHits('机器学习', 'hybrid'))[0]).toBe('zh');
  expect((await keywordHits('自然言語処理', 'hybrid'))[0]).toBe('ja');
}

/** English queries' answers (their chunks, in order), to hold against later answers. */
const ENGLISH_QUERIES = ['Sicilian', 'pawns', 'king pawn defence', 'answers'];
async function englishAnswers(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of ENGLISH_QUERIES) {
    const res = await search(server, { collection_name: COLLECTION, query, mode: 'keyword', top_k: 10 });
    out.push(res.body.results.map((r: { chunk_id: string }) => r.chunk_id));
  }
  return out;
}

/** Stops the server, puts its store's full text back as the earlier version wrote it, and checks what that finds. */
async function rewindTo(earlier: EarlierFullText): Promise<void> {
  await server.close();
  const url = await databaseFor(dataDir);
  if (url) await writePostgresFullTextAsEarlier(url, COLLECTION, earlier);
  else writeSqliteFullTextAsEarlier(join(dataDir, 'lectern.db'), earlier);
  // As the earlier version had it: English found, a German word's other form not, nor (before words) a Chinese word.
  expect(await oldIndexFinds(url, 'sicilian')).toBe(1);
  expect(await oldIndexFinds(url, 'kindern')).toBe(1);
  expect(await oldIndexFinds(url, 'kind')).toBe(0);
  expect(await oldIndexFinds(url, '机器')).toBe(earlier === 'runs' ? 0 : 1);
}

describe('keyword search in Chinese, Japanese, German, French and English', () => {
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

  it("finds German and French words by their other forms, stemmed in the document's detected language", async () => {
    for (const [lang, code] of Object.entries(DETECTED)) {
      const job = await json(await server.call('GET', `/jobs/${jobs[lang as Lang]}`));
      expect(job.detected_language?.code, lang).toBe(code);
    }
    // None of the queries is in its document as it is written.
    for (const [query, lang] of STEM_CASES)
      expect(wordsOf(DOCUMENTS[lang]).has(query.toLowerCase()), query).toBe(false);
    for (const [query, lang] of STEM_CASES) expect(await keywordHits(query), query).toEqual([lang]);
    // A chunk's own words still find it, inflected as written.
    expect(await keywordHits('Häusern')).toEqual(['de']);
    expect(await keywordHits('chevaux')).toEqual(['fr']);
  });

  it('finds them all after an upgrade from full text an earlier version wrote, which found only English words', async () => {
    await rewindTo('runs');
    await start();
    await expectEveryLanguageFound();
  });

  it('stems after an upgrade from full text without stems, English answers unchanged, and a second start redoes nothing', async () => {
    const english = await englishAnswers();
    await rewindTo('words');
    await start();
    await expectEveryLanguageFound();
    expect(await englishAnswers()).toEqual(english);
    // A second start does not index again: an entry taken out of the index stays out.
    await server.close();
    await dropIndexedText(jobs.de);
    await start();
    expect(await keywordHits('Haus')).toEqual([]);
    expect(await keywordHits('cheval')).toEqual(['fr']);
  });
});

/** How many rows the stopped server's full text finds for one word, read in the store itself. */
async function oldIndexFinds(url: string | undefined, word: string): Promise<number> {
  if (!url) return storeCount(dataDir, 'SELECT count(*) AS n FROM chunk_fts WHERE chunk_fts MATCH ?', [`"${word}"`]);
  return storeCount(
    dataDir,
    `SELECT count(*) AS n FROM ${textTableName(COLLECTION)} WHERE tsv @@ to_tsquery('english', quote_literal(?))`,
    [word],
  );
}

/** Takes a job's rows out of the stopped server's full text (not out of the collection). */
async function dropIndexedText(jobId: string): Promise<void> {
  const url = await databaseFor(dataDir);
  const ids = (await storeRows<{ id: number }>(dataDir, 'SELECT id FROM chunk_vectors WHERE job_id = ?', [jobId])).map(
    (r) => Number(r.id),
  );
  if (!url) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(join(dataDir, 'lectern.db'));
    try {
      for (const id of ids) db.prepare('DELETE FROM chunk_fts WHERE rowid = ?').run(id);
    } finally {
      db.close();
    }
    return;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DELETE FROM "${textTableName(COLLECTION)}" WHERE id = ANY($1::integer[])`, [ids]);
  } finally {
    await client.end();
  }
}
