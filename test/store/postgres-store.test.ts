import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type OpenedPostgres } from '../../server/store/postgres/connection.js';
import { createPostgresStore } from '../../server/store/postgres/postgres-store.js';
import { repoRoot } from '../helpers/app.js';
import { freshDatabase, useTeamServices } from '../helpers/team-services.js';
import { sqlStoreContract } from './contract/harness.js';

// The repository contract on the team server's PostgreSQL (with pgvector), a real server started by
// scripts/team-services.sh: each case gets a database of its own, created and migrated as a node would.
const services = useTeamServices();
const migrations = join(repoRoot, 'drizzle', 'pg');
let admin: pg.Pool;
let made = 0;
const opened: OpenedPostgres[] = [];

beforeAll(() => {
  admin = new pg.Pool({ connectionString: services().env.LECTERN_DATABASE_URL, max: 2 });
});
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close();
});
afterAll(async () => {
  await admin?.end();
});

async function freshDatabaseUrl(): Promise<string> {
  const name = `contract_${process.pid}_${++made}`;
  return freshDatabase(services().env.LECTERN_DATABASE_URL, name, admin);
}

describe('postgres store', () => {
  sqlStoreContract(
    async () => {
      const database = await openPostgres(await freshDatabaseUrl(), migrations, { max: 4 });
      opened.push(database);
      return { store: createPostgresStore(database), database };
    },
    async (database, sql, params) => {
      await database.pool.query(sql, params);
    },
    (n) => `$${n}`,
  );

  it('migrates once when several nodes start together, and not again at the next start', async () => {
    const url = await freshDatabaseUrl();
    const nodes = await Promise.all([1, 2, 3].map(() => openPostgres(url, migrations, { max: 2 })));
    opened.push(...nodes);
    const count = async () =>
      Number((await nodes[0]!.pool.query('SELECT count(*) AS n FROM drizzle.__drizzle_migrations')).rows[0].n);
    const applied = await count();
    expect(applied).toBeGreaterThan(0);
    opened.push(await openPostgres(url, migrations, { max: 2 }));
    expect(await count()).toBe(applied);
  });

  it('refuses, in one line, a database a newer version migrated, a wrong address and a server it cannot reach', async () => {
    const url = await freshDatabaseUrl();
    const node = await openPostgres(url, migrations, { max: 2 });
    opened.push(node);
    await node.pool.query(
      `INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('from-a-newer-version', 99999999999999)`,
    );
    await expect(openPostgres(url, migrations)).rejects.toMatchObject({
      code: 'INVALID_SETTINGS',
      message: expect.stringMatching(/newer version of Lectern.*never migrated backwards/),
    });
    await expect(openPostgres('mysql://localhost/lectern', migrations)).rejects.toThrow(
      /must start with postgres:\/\//,
    );
    const closed = new URL(services().env.LECTERN_DATABASE_URL);
    closed.port = '1';
    closed.password = 'secret';
    const refused = openPostgres(closed.href, migrations);
    await expect(refused).rejects.toThrow(/cannot connect: .*ECONNREFUSED/);
    await expect(refused).rejects.toThrow(/postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\//);
    for (const err of [await refused.catch((e: Error) => e)]) expect((err as Error).message).not.toContain('\n');
  });
});
