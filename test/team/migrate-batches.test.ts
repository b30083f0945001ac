import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocks, chunks, chunkVectors, jobs, pages } from '../../drizzle/schema.js';
import { openDatabase } from '../../server/store/db.js';
import { copyTable } from '../../server/store/migrate/copy-tables.js';
import { migrateLibrary } from '../../server/store/migrate/migrate-library.js';
import { pgSide } from '../../server/store/migrate/pg-side.js';
import { sqliteSide } from '../../server/store/migrate/sqlite-side.js';
import { MIRRORED_TABLES, type MirroredTable } from '../../server/store/migrate/tables.js';
import { openPostgres } from '../../server/store/postgres/connection.js';
import { createPostgresStore } from '../../server/store/postgres/postgres-store.js';
import { createSqliteStore } from '../../server/store/sqlite/sqlite-store.js';
import { repoRoot, tempDir } from '../helpers/app.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';

// The copy's batches over real SQLite and PostgreSQL: tables and a collection larger than a batch, keys
// that sort differently by byte and by collation, values whose types the two databases keep differently,
// and a copy cut short that a second run finishes.
const services = useTeamServices();
let admin: pg.Pool;
let made = 0;
beforeAll(() => {
  admin = new pg.Pool({ connectionString: services().env.LECTERN_DATABASE_URL, max: 2 });
});
afterAll(async () => {
  await admin?.end();
});

async function freshDatabaseUrl(): Promise<string> {
  const name = `migrate_batches_${process.pid}_${++made}`;
  return freshDatabase(services().env.LECTERN_DATABASE_URL, name, admin);
}

const table = (name: string): MirroredTable => MIRRORED_TABLES.find((t) => t.name === name)!;
const at = '2026-03-04T05:06:07.089Z';
const JOB_IDS = ['Zeta', 'alpha', 'Émile'];
const BLOCKS_PER_JOB = 411;
const VECTORS = 2_345;
const DIMS = 8;
const vectorOf = (key: number) => Float32Array.from({ length: DIMS }, (_, i) => Math.sin(key * 0.7 + i));

/** A desktop folder holding three jobs of 411 blocks and pages each and a 2,345-vector f16 collection. */
async function seedDesktop(dir: string): Promise<void> {
  const database = openDatabase(join(dir, 'lectern.db'), join(repoRoot, 'drizzle'));
  const store = createSqliteStore(database, { indexesDir: join(dir, 'indexes') });
  const { db } = database;
  for (const jobId of JOB_IDS) {
    db.insert(jobs)
      .values({
        jobId,
        status: 'indexed',
        sourceFile: `${jobId}.pdf`,
        format: 'pdf',
        fileHash: 'h',
        sizeBytes: 1,
        options: { chunk_size: 512, chunk_overlap: 64 },
        source: null,
        createdAt: at,
        updatedAt: at,
      })
      .run();
    const rows = Array.from({ length: BLOCKS_PER_JOB }, (_, i) => ({
      jobId,
      // Upper and lower case, digits and accents: byte order and a collation's order disagree.
      blockId: [`b${i}`, `B${i}`, `é${i}`][i % 3]!,
      orderIndex: i,
      page: i + 1,
      type: 'paragraph',
      text: `Block ${i} — «quoted» ✓ ${'x'.repeat(i % 50)}`,
      bbox: i % 2 ? null : { y1: 2.5, x0: 0.1 + 0.2, x1: 3, y0: 1 },
      hierarchyPath: ['Part', `§${i % 7}`],
      tableGrid: i % 5 ? null : { rows: [['a', 'b']], header_rows: 1 },
      confidence: i % 3 ? null : i / 3,
      flagged: i % 4 === 0,
      updatedAt: at,
    }));
    for (let i = 0; i < rows.length; i += 100)
      db.insert(blocks)
        .values(rows.slice(i, i + 100))
        .run();
    const pageRows = Array.from({ length: BLOCKS_PER_JOB }, (_, i) => ({
      jobId,
      page: i + 1,
      width: 595.28,
      height: 841.89,
      needsOcr: i % 2 === 0,
      rotation: i % 4 ? null : 90,
    }));
    for (let i = 0; i < pageRows.length; i += 100)
      db.insert(pages)
        .values(pageRows.slice(i, i + 100))
        .run();
  }
  const spec = { name: 'library', dimensions: DIMS, quantization: 'f16' as const };
  await store.collections.ensure({ ...spec, provider: 'local', base_url: null, model: 'm', created_at: at });
  const keys = Array.from({ length: VECTORS }, (_, i) => i + 1);
  const flat = new Float32Array(VECTORS * DIMS);
  keys.forEach((k, i) => flat.set(vectorOf(k), i * DIMS));
  await store.search.vectors.write(spec, { add: { keys, vectors: flat } });
  const vectorRows = keys.map((key) => ({
    collection: 'library',
    key,
    jobId: JOB_IDS[key % 3]!,
    chunkId: `c${key}`,
    text: `chunk ${key} about ${key % 2 ? 'lava' : 'bread'}`,
    textHash: `h${key}`,
    createdAt: at,
  }));
  const chunkRows = vectorRows.map((v) => ({
    jobId: v.jobId,
    chunkId: v.chunkId,
    orderIndex: v.key,
    text: v.text,
    tokenCount: 5,
    chunkType: 'section',
    sectionPath: ['S'],
    pageNumbers: [1],
    blockIds: ['b0'],
    status: 'approved',
    updatedAt: at,
  }));
  for (let i = 0; i < vectorRows.length; i += 500) {
    db.insert(chunks)
      .values(chunkRows.slice(i, i + 500))
      .run();
    db.insert(chunkVectors)
      .values(vectorRows.slice(i, i + 500))
      .run();
  }
  database.close();
}

describe('lectern migrate in batches', () => {
  it('copies tables and a collection larger than a batch, finishes a copy cut short, and both sides agree', async () => {
    const desktopDir = tempDir('lectern-desktop-');
    await seedDesktop(desktopDir);
    const database_url = await freshDatabaseUrl();
    const migrations = join(repoRoot, 'drizzle');

    // A run cut short: the jobs and the first 700 blocks are in, in whole batches; nothing else.
    {
      const lite = openDatabase(join(desktopDir, 'lectern.db'), migrations);
      const team = await openPostgres(database_url, join(migrations, 'pg'), { max: 2 });
      const [from, to] = [sqliteSide(lite.db), pgSide(team.db)];
      await copyTable(table('jobs'), from, to);
      const first = await from.page(table('blocks'), null, 500);
      const second = await from.page(
        table('blocks'),
        { jobId: first.at(-1)!.jobId, blockId: first.at(-1)!.blockId },
        200,
      );
      expect(await to.insertNew(table('blocks'), first)).toBe(500);
      expect(await to.insertNew(table('blocks'), second)).toBe(200);
      lite.close();
      await team.close();
    }

    const settings = { database_url, data_dir: tempDir('lectern-team-'), object_store_url: '', chat_key_file: '' };
    const report = await migrateLibrary({ direction: 'to-team', desktopDir, settings, appRoot: repoRoot });
    expect(report.agree).toBe(true);
    const byName = Object.fromEntries(report.tables.map((t) => [t.table, t]));
    expect(byName.jobs).toMatchObject({ copied: 0, skipped: 3 });
    expect(byName.blocks).toMatchObject({
      copied: 3 * BLOCKS_PER_JOB - 700,
      skipped: 700,
      source: { rows: 3 * BLOCKS_PER_JOB },
      target: { rows: 3 * BLOCKS_PER_JOB },
    });
    expect(byName.pages).toMatchObject({ copied: 3 * BLOCKS_PER_JOB, skipped: 0 });
    expect(byName.chunk_vectors).toMatchObject({ copied: VECTORS, skipped: 0 });
    expect(report.vectors).toEqual([{ collection: 'library', copied: VECTORS, skipped: 0, absent: 0 }]);

    // The vectors read the same from pgvector as from the desktop's file, and find the same neighbours.
    const team = await openPostgres(database_url, join(migrations, 'pg'), { max: 2 });
    const lite = openDatabase(join(desktopDir, 'lectern.db'), migrations);
    try {
      const spec = { name: 'library', dimensions: DIMS, quantization: 'f16' as const };
      const [pgStore, liteStore] = [
        createPostgresStore(team),
        createSqliteStore(lite, { indexesDir: join(desktopDir, 'indexes') }),
      ];
      const sample = [1, 2, 999, 2000, 2001, VECTORS];
      const [a, b] = [
        await liteStore.search.vectors.read(spec, sample),
        await pgStore.search.vectors.read(spec, sample),
      ];
      for (const k of sample) expect(Array.from(b.get(k)!)).toEqual(Array.from(a.get(k)!));
      // The vectors come round to the same phase every nine keys or so: past the first, neighbours are near ties
      // that the desktop's f16 index and pgvector's f32 may order either way. The same key first, then the
      // same similarities down the list.
      const nearest = (s: typeof pgStore) => s.search.vectors.nearest(spec, vectorOf(1234), 5);
      const [onPg, onLite] = [await nearest(pgStore), await nearest(liteStore)];
      expect([onPg[0]?.id, onLite[0]?.id]).toEqual([1234, 1234]);
      expect(onPg.map((c) => c.score)).toEqual(onLite.map((c) => expect.closeTo(c.score, 2)));
      // Full text came along with the rows.
      const lava = async (s: typeof pgStore) =>
        (await s.search.fullText.candidates('library', 'lava', 5000)).map((c) => c.id).sort((x, y) => x - y);
      expect(await lava(pgStore)).toHaveLength(Math.ceil(VECTORS / 2));
      expect(await lava(pgStore)).toEqual(await lava(liteStore));
    } finally {
      lite.close();
      await team.close();
    }

    // And back into a new desktop folder, in batches the other way.
    const backDir = tempDir('lectern-back-');
    const back = await migrateLibrary({ direction: 'to-desktop', desktopDir: backDir, settings, appRoot: repoRoot });
    expect(back.agree).toBe(true);
    expect(back.tables.map((t) => [t.table, t.target.checksum])).toEqual(
      report.tables.map((t) => [t.table, t.source.checksum]),
    );
    expect(back.vectors).toEqual([{ collection: 'library', copied: VECTORS, skipped: 0, absent: 0 }]);
  });

  it('stops at a row that clashes with another of the target, naming the table, and leaves that batch out whole', async () => {
    const desktopDir = tempDir('lectern-desktop-');
    const database = openDatabase(join(desktopDir, 'lectern.db'), join(repoRoot, 'drizzle'));
    const key = {
      name: 'desk',
      role: 'reader' as const,
      scope: { bots: [], jobs: [] },
      prefix: 'lk_x',
      created_at: at,
    };
    await createSqliteStore(database).keys.insert({ ...key, key_id: 'k-desktop', hash: 'h-desktop' });
    database.close();
    const database_url = await freshDatabaseUrl();
    const team = await openPostgres(database_url, join(repoRoot, 'drizzle', 'pg'), { max: 2 });
    await createPostgresStore(team).keys.insert({ ...key, key_id: 'k-team', hash: 'h-team' });
    await team.close();
    const settings = { database_url, data_dir: tempDir('lectern-team-'), object_store_url: '', chat_key_file: '' };
    await expect(
      migrateLibrary({ direction: 'to-team', desktopDir, settings, appRoot: repoRoot }),
    ).rejects.toMatchObject({
      code: 'MIGRATE_CONFLICT',
      message: expect.stringMatching(/^table api_keys: .*api_keys_name_idx/),
    });
    const after = await openPostgres(database_url, join(repoRoot, 'drizzle', 'pg'), { max: 2 });
    expect((await createPostgresStore(after).keys.list()).map((k) => k.prefix)).toEqual(['lk_x']);
    expect(
      Number((await after.pool.query(`SELECT count(*) AS n FROM api_keys WHERE key_id = 'k-desktop'`)).rows[0].n),
    ).toBe(0);
    await after.close();
    // The folder is let go of: a second run can take it (and clashes the same way).
    await expect(
      migrateLibrary({ direction: 'to-team', desktopDir, settings, appRoot: repoRoot }),
    ).rejects.toMatchObject({ code: 'MIGRATE_CONFLICT' });
  });
});
