/**
 * A stopped test server's store put back to the full text an earlier version wrote, so that its next start
 * upgrades it as it would a real library of that version:
 * - `words`: the version before stems (drizzle/0020_chunk_language.sql, drizzle/pg/0004_chunk_language.sql
 *   not applied): chunk_vectors without `language`, every row indexed as `fullTextWords` gives its text;
 * - `runs`: the version before full-text words as well (drizzle/0018_full_text_words.sql not applied on the
 *   desktop, text tables without their comment on a team server): the text indexed as it is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { FULL_TEXT_WORDS_FUNCTION } from '../../server/store/db.js';
import { fullTextWords } from '../../server/store/full-text-words.js';
import { TEXT_TABLE_WORDS_WITHOUT_STEMS, textTableName } from '../../server/store/postgres/collection-tables.js';
import { repoRoot } from './app.js';

export type EarlierFullText = 'words' | 'runs';

const statements = (file: string): string[] =>
  readFileSync(join(repoRoot, 'drizzle', file), 'utf8').split('--> statement-breakpoint');

const migrationTime = (folder: string, tag: string): number => {
  const journal = JSON.parse(readFileSync(join(repoRoot, folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.find((e) => e.tag === tag)!.when;
};

/** The desktop's database as the earlier version left it, with the migrations since marked not applied. */
export function writeSqliteFullTextAsEarlier(file: string, earlier: EarlierFullText): void {
  const db = new Database(file);
  try {
    // The one-argument function the earlier version registered: words only.
    db.function(FULL_TEXT_WORDS_FUNCTION, { deterministic: true }, (text: unknown) =>
      typeof text === 'string' ? fullTextWords(text) : '',
    );
    db.transaction(() => {
      db.exec('DROP INDEX chunk_vectors_language_idx');
      for (const s of statements('0018_full_text_words.sql')) db.exec(s);
      db.exec('ALTER TABLE chunk_vectors DROP COLUMN language');
      if (earlier === 'runs') {
        for (const t of ['insert', 'delete', 'update']) db.exec(`DROP TRIGGER chunk_vectors_fts_${t}`);
        db.exec('DROP TABLE chunk_fts');
        for (const s of statements('0002_search_fts.sql')) db.exec(s);
        db.exec(`INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')`);
      }
      // Only the migrations undone here are marked not applied: others between them (collection reindexes) stay.
      const undone = earlier === 'runs' ? ['0018_full_text_words', '0020_chunk_language'] : ['0020_chunk_language'];
      const forget = db.prepare('DELETE FROM __drizzle_migrations WHERE created_at = ?');
      for (const tag of undone) forget.run(migrationTime('drizzle', tag));
    })();
  } finally {
    db.close();
  }
}

/** A team server's database as the earlier version left it: the collection's text table and chunk_vectors. */
export async function writePostgresFullTextAsEarlier(
  url: string,
  collection: string,
  earlier: EarlierFullText,
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t = `"${textTableName(collection)}"`;
    const rows = await client.query<{ id: number; text: string }>(
      'SELECT id, text FROM chunk_vectors WHERE collection = $1',
      [collection],
    );
    const words = rows.rows.map((r) => (earlier === 'runs' ? r.text : fullTextWords(r.text)));
    await client.query('BEGIN');
    await client.query(
      `UPDATE ${t} x SET tsv = v.tsv,
         len = (SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0) FROM unnest(v.tsv) u)
       FROM (SELECT r.id, to_tsvector('english', r.words) AS tsv FROM unnest($1::integer[], $2::text[]) AS r(id, words)) v
       WHERE x.id = v.id`,
      [rows.rows.map((r) => r.id), words],
    );
    await client.query(
      earlier === 'runs'
        ? `COMMENT ON TABLE ${t} IS NULL`
        : `COMMENT ON TABLE ${t} IS '${TEXT_TABLE_WORDS_WITHOUT_STEMS}'`,
    );
    await client.query('DROP INDEX chunk_vectors_language_idx');
    await client.query('ALTER TABLE chunk_vectors DROP COLUMN language');
    // That migration and every later one: the migrator applies only those after the last it finds.
    await client.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at >= $1', [
      migrationTime(join('drizzle', 'pg'), '0004_chunk_language'),
    ]);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}
