import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkKey, type ObjectStore } from '../objects/object-store.js';
import type { TableSide } from './table-side.js';
import { MIRRORED_TABLES, type MirroredTable } from './tables.js';

export interface FilesReport {
  copied: number;
  skipped: number;
  bytes: number;
}

const isKey = (key: string): boolean => {
  try {
    checkKey(key, 'prefix');
    return true;
  } catch {
    return false;
  }
};

const jobs = MIRRORED_TABLES.find((t) => t.name === 'jobs') as MirroredTable;

/**
 * Copies each job's files (`files/<job id>/…`: the original and its page images) that the target lacks or
 * holds at another size. A job at a time, so a listing never holds more than one job's files; each object is
 * written whole or not at all (ObjectStore), so a run cut short leaves nothing half-written.
 */
export async function copyFiles(side: TableSide, from: ObjectStore, to: ObjectStore): Promise<FilesReport> {
  const report: FilesReport = { copied: 0, skipped: 0, bytes: 0 };
  let after: Record<string, unknown> | null = null;
  for (;;) {
    const rows = await side.page(jobs, after, 500);
    const last = rows.at(-1);
    if (!last) break;
    for (const job of rows) {
      const prefix = `files/${String(job.jobId)}`;
      // A job id no object key can name has no files (the ids the API gives are UUIDs).
      if (!isKey(prefix)) continue;
      for (const o of await from.list(prefix)) {
        if ((await to.head(o.key))?.size === o.size) {
          report.skipped++;
          continue;
        }
        const local = from.localPath(o.key);
        if (local) await to.putFile(o.key, local);
        else await to.put(o.key, await from.getStream(o.key));
        report.copied++;
        report.bytes += o.size;
      }
    }
    after = { jobId: last.jobId };
  }
  return report;
}

/**
 * The key that seals chats at rest (encrypt_chats) goes along when the target has none, or the moved
 * messages could not be read. Two different keys cannot both be used: said, not overwritten.
 */
export function copyChatKey(from: string, to: string): 'copied' | 'same' | 'differs' | 'none' {
  if (!existsSync(from)) return 'none';
  if (!existsSync(to)) {
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
    return 'copied';
  }
  return readFileSync(from).equals(readFileSync(to)) ? 'same' : 'differs';
}
