/**
 * A team server's data folder is shared by its nodes and holds no lock, so nothing stops a process started
 * on it without the database from opening (and filling) a SQLite library of its own there, beside the
 * team's, where nobody would see it. Each team node marks the folder with its database's address (password
 * hidden); a process given the folder without a database refuses to open it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SettingsError, type Settings } from '../schemas/settings.js';
import { redactUrl } from './postgres/connection.js';

const MARK = 'team-database';

/** Marks `dataDir` as the folder of the team server on `databaseUrl`. */
export function markTeamFolder(dataDir: string, databaseUrl: string): void {
  const text = `${redactUrl(databaseUrl)}\n`;
  const file = join(dataDir, MARK);
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
}

/** Refuses a folder a team server uses when no database is given. */
export function refuseTeamFolderWithoutDatabase(settings: Pick<Settings, 'data_dir' | 'database_url'>): void {
  if (settings.database_url) return;
  const file = join(settings.data_dir, MARK);
  if (!existsSync(file)) return;
  const at = readFileSync(file, 'utf8').trim();
  throw new SettingsError(
    `the data folder ${settings.data_dir} is a team server's, whose library is in the database ${at}: give its database_url (--database-url or LECTERN_DATABASE_URL)`,
  );
}
