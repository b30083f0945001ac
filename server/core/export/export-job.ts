import { createHash, randomUUID } from 'node:crypto';
import { copyFileSync, createReadStream, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  const cleaned = basename(sourceFile).replace(/[^\w.\- ]+/g, '_').replace(/^\.+/, '');
  const ext = /\.[A-Za-z0-9]{1,8}$/.exec(cleaned)?.[0] ?? '';
  const stem = cleaned.slice(0, cleaned.length - ext.length).slice(0, NAME_STEM_MAX).trim();
  return `${stem || 'document'}${keepExtension ? ext : ''}`;
}

/** The original's file name inside the zip. */
const originalName = (sourceFile: string): string => `original-${safeName(sourceFile, true)}`;

/**
 * Writes the export folder for a finalized job and zips it. Returns the zip's path and a suggested name;
 * the caller streams it and calls `cleanup` afterwards.
 */
export function createExporter({ store, files, clock, appVersion }: { store: Store; files: FileStore; clock: Clock; appVersion: string }) {
  return async function exportJob(jobId: string) {
    const job = await findJob(store, jobId);
    requireState(job, EXPORTABLE, 'export');
    const workDir = join(files.exportsDir, jobId, randomUUID());
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
      copyFileSync(files.originalPath(jobId, job.source_file), join(folder, originalName(job.source_file)));
      const listed = await Promise.all(
        readdirSync(folder).sort().map(async (name) => ({ name, bytes: statSync(join(folder, name)).size, sha256: await sha256File(join(folder, name)) })),
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
      return {
        path: zipPath,
        fileName: `${safeName(job.source_file, false).replace(/ /g, '_')}-lectern.zip`,
        cleanup: () => rmSync(workDir, { recursive: true, force: true }),
      };
    } catch (err) {
      rmSync(workDir, { recursive: true, force: true });
      throw err;
    }
  };
}
export type ExportJob = ReturnType<typeof createExporter>;
