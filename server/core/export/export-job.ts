import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { basename, join } from 'node:path';
import { zip } from 'zip-a-folder';
import type { FileStore } from '../../store/file-store.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { findJob } from '../jobs/find-job.js';
import { requireState } from '../review/review-state.js';
import { blockView, jobView } from '../views.js';
import { renderDocument } from './render-markdown.js';

const EXPORTABLE = ['finalized', 'indexed'];
const ACCEPTED = new Set(['approved', 'edited']);
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Characters of the client's file name kept in names Lectern writes: far below any file system's limit. */
const NAME_STEM_MAX = 100;

/**
 * The client's file name (stem and a short extension) reduced to safe ASCII characters and bounded in
 * length: a 300-character upload name made the zip's member name too long for the file system.
 */
function safeName(sourceFile: string, keepExtension: boolean): string {
  const cleaned = basename(sourceFile)
    .replace(/[^\w.\- ]+/g, '_')
    .replace(/^\.+/, '');
  const ext = /\.[A-Za-z0-9]{1,8}$/.exec(cleaned)?.[0] ?? '';
  const stem = cleaned
    .slice(0, cleaned.length - ext.length)
    .slice(0, NAME_STEM_MAX)
    .trim();
  return `${stem || 'document'}${keepExtension ? ext : ''}`;
}

/** The original's file name inside the zip. */
const originalName = (sourceFile: string): string => `original-${safeName(sourceFile, true)}`;

/** A made export: its zip as a stream from the object store, a suggested name, and what removes it once sent. */
export interface MadeExport {
  stream: Readable;
  fileName: string;
  /** Removes the export's object; called when the stream has closed (sent whole or not). */
  cleanup(): void;
}

/**
 * Writes the export folder for a finalized job in the data folder's tmp/ and zips it, puts the zip in the
 * object store (`exports/<job>/<random>.zip`) and answers it as a stream from there. A store that refuses
 * the write answers OBJECT_STORE_FAILED and keeps nothing; tmp/ is emptied either way.
 */
export function createExporter({
  store,
  files,
  clock,
  appVersion,
  log,
}: {
  store: Store;
  files: FileStore;
  clock: Clock;
  appVersion: string;
  log?: { warn(obj: object, msg?: string): void };
}) {
  return async function exportJob(jobId: string): Promise<MadeExport> {
    const job = await findJob(store, jobId);
    requireState(job, EXPORTABLE, 'export');
    const workDir = join(files.tmpDir, `export-${randomUUID()}`);
    const folder = join(workDir, 'export');
    mkdirSync(folder, { recursive: true });
    try {
      const allBlocks = (await store.blocks.find(jobId)).map(blockView);
      const allChunks = await store.chunks.find(jobId);
      const trail = await store.revisions.all(jobId);
      const acceptedBlocks = allBlocks.filter((b) => ACCEPTED.has(b.status));
      const acceptedChunks = allChunks.filter((c) => ACCEPTED.has(c.status));
      const rejected = [
        ...allBlocks.filter((b) => b.status === 'rejected').map((b) => ({ entity_type: 'block', ...b })),
        ...allChunks.filter((c) => c.status === 'rejected').map((c) => ({ entity_type: 'chunk', ...c })),
      ];
      writeFileSync(join(folder, 'document.md'), renderDocument(job.title, acceptedBlocks));
      // LongParser's export holds blocks.json and chunks.json (indented JSON arrays): its readers find them here too.
      writeFileSync(join(folder, 'blocks.json'), `${JSON.stringify(acceptedBlocks, null, 2)}\n`);
      writeFileSync(join(folder, 'chunks.json'), `${JSON.stringify(acceptedChunks, null, 2)}\n`);
      writeFileSync(join(folder, 'blocks.jsonl'), jsonl(acceptedBlocks));
      writeFileSync(join(folder, 'chunks.jsonl'), jsonl(acceptedChunks));
      writeFileSync(join(folder, 'audit.jsonl'), jsonl(trail));
      writeFileSync(join(folder, 'rejected.jsonl'), jsonl(rejected));
      await files.objects.download(
        files.originalKey(jobId, job.source_file),
        join(folder, originalName(job.source_file)),
      );
      const listed = await Promise.all(
        readdirSync(folder)
          .sort()
          .map(async (name) => ({
            name,
            bytes: statSync(join(folder, name)).size,
            sha256: await sha256File(join(folder, name)),
          })),
      );
      const manifest = {
        job: jobView(job),
        source: { file: job.source_file, sha256: job.file_hash, bytes: job.size_bytes, format: job.format },
        app: { name: 'lectern', version: appVersion },
        exported_at: isoNow(clock),
        counts: {
          blocks: acceptedBlocks.length,
          chunks: acceptedChunks.length,
          rejected_blocks: rejected.filter((r) => r.entity_type === 'block').length,
          rejected_chunks: rejected.filter((r) => r.entity_type === 'chunk').length,
          revisions: trail.length,
        },
        files: listed,
      };
      writeFileSync(join(folder, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      const zipPath = join(workDir, 'export.zip');
      await zip(folder, zipPath);
      const key = files.exportKey(jobId);
      await files.objects.putFile(key, zipPath, { move: true, contentType: 'application/zip' });
      const remove = (): void => {
        files.objects
          .delete(key)
          .catch((err: unknown) => log?.warn({ err, key }, 'could not remove a sent export from the object store'));
      };
      let stream: Readable;
      try {
        stream = await files.objects.getStream(key);
      } catch (err) {
        remove();
        throw err;
      }
      return {
        stream,
        fileName: `${safeName(job.source_file, false).replace(/ /g, '_')}-lectern.zip`,
        cleanup: remove,
      };
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  };
}
export type ExportJob = ReturnType<typeof createExporter>;
