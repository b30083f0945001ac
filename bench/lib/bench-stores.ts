/**
 * The stores a retrieval bench measures, opened by the product's own openStore(): `sqlite` is the desktop's
 * (the data dir's lectern.db and USearch files, kept between runs), `postgres` the team server's. PostgreSQL
 * is `databaseUrl` when given (used as it is: a second run finds its vectors there), otherwise the team
 * services started in a temp folder with a fresh database, both stopped and removed by `close`.
 */
import { rmSync } from 'node:fs';
import { openStore, type OpenedStore } from '../../server/store/open-store.js';
import { freshDatabase, startTeamServices } from '../../test/helpers/team-services-script.js';

export { freshDatabase };

export const STORE_KINDS = ['sqlite', 'postgres'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export function parseStoreKinds(list: string): StoreKind[] {
  const kinds = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const k of kinds)
    if (!(STORE_KINDS as readonly string[]).includes(k))
      throw new Error(`--stores: unknown store ${k} (${STORE_KINDS.join(', ')})`);
  return kinds as StoreKind[];
}

/** A fresh database on the server `url` points at, named `name`; returns its URL. */
export async function openBenchStore(
  kind: StoreKind,
  opts: { dataDir: string; root: string; databaseUrl?: string; log: (line: string) => void },
): Promise<OpenedStore> {
  if (kind === 'sqlite') return openStore({ data_dir: opts.dataDir, database_url: '' }, opts.root);
  if (opts.databaseUrl) return openStore({ data_dir: opts.dataDir, database_url: opts.databaseUrl }, opts.root);
  const services = await startTeamServices();
  const remove = async (): Promise<void> => {
    try {
      await services.stop();
    } finally {
      rmSync(services.dir, { recursive: true, force: true });
    }
  };
  try {
    const url = await freshDatabase(services.env.LECTERN_DATABASE_URL, 'lectern_bench_retrieval');
    const opened = await openStore({ data_dir: opts.dataDir, database_url: url }, opts.root);
    opts.log(`postgres: team services in ${services.dir}, ${opened.location}`);
    return {
      ...opened,
      async close() {
        try {
          await opened.close();
        } finally {
          await remove();
        }
      },
    };
  } catch (err) {
    await remove();
    throw err;
  }
}
