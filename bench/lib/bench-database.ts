/**
 * The PostgreSQL a benchmark measures: LECTERN_DATABASE_URL when set (used as it is configured), otherwise
 * a server of its own started by scripts/team-services.sh in a temp folder, given `sharedBuffers` (a
 * restart, since PostgreSQL reads shared_buffers at start only) and stopped and removed by `close`.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { startTeamServices } from '../../test/helpers/team-services-script.js';

export interface BenchDatabase {
  url: string;
  /** Where it came from, for the report. */
  origin: string;
  connect(): Promise<pg.Client>;
  setting(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openBenchDatabase(opts: { sharedBuffers: string }): Promise<BenchDatabase> {
  const given = process.env.LECTERN_DATABASE_URL;
  let close = async (): Promise<void> => {};
  let url: string;
  let origin: string;
  if (given) {
    url = given;
    origin = 'LECTERN_DATABASE_URL';
  } else {
    const services = await startTeamServices();
    close = async () => {
      try {
        await services.stop();
      } finally {
        rmSync(services.dir, { recursive: true, force: true });
      }
    };
    try {
      const db = new pg.Client({ connectionString: services.env.LECTERN_DATABASE_URL });
      await db.connect();
      await db.query(`ALTER SYSTEM SET shared_buffers = '${opts.sharedBuffers}'`);
      await db.end();
      await services.stop();
      url = (await services.start()).LECTERN_DATABASE_URL;
    } catch (err) {
      await close();
      throw err;
    }
    origin = `scripts/team-services.sh in ${services.dir}`;
  }
  const connect = async (): Promise<pg.Client> => {
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query('CREATE EXTENSION IF NOT EXISTS vector');
    return db;
  };
  return {
    url,
    origin,
    connect,
    async setting(name) {
      const db = await connect();
      try {
        return String((await db.query(`SHOW ${name}`)).rows[0]?.[name]);
      } finally {
        await db.end();
      }
    },
    close,
  };
}
