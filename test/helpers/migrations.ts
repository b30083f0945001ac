import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './app.js';

/**
 * A copy (in `dir`) of the migrations folder as it was before the migration whose tag ends with `tag`:
 * open a database with it to get one an earlier version wrote, then open it again with the real folder.
 */
export function migrationsBefore(tag: string, dir: string): string {
  const folder = join(dir, 'before');
  cpSync(join(repoRoot, 'drizzle'), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag.endsWith(tag));
  if (at <= 0) throw new Error(`no migration ${tag} after the first`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}
