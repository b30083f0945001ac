import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Where a job's files live under the data directory: originals in files/, zips under exports/. */
export function createFileStore(dataDir: string) {
  const filesDir = join(dataDir, 'files');
  const exportsDir = join(dataDir, 'exports');
  const tmpDir = join(dataDir, 'tmp');
  for (const d of [filesDir, exportsDir, tmpDir]) mkdirSync(d, { recursive: true });
  return {
    tmpDir,
    exportsDir,
    jobDir: (jobId: string) => join(filesDir, jobId),
    originalPath: (jobId: string, sourceFile: string) => join(filesDir, jobId, `original${safeExtension(sourceFile)}`),
    discardTmp(path: string): void {
      rmSync(path, { force: true });
    },
    removeJob(jobId: string): void {
      rmSync(join(filesDir, jobId), { recursive: true, force: true });
      rmSync(join(exportsDir, jobId), { recursive: true, force: true });
    },
  };
}
export type FileStore = ReturnType<typeof createFileStore>;

/** Only a short alphanumeric extension of the client's file name reaches the file system. */
function safeExtension(name: string): string {
  const m = /\.([A-Za-z0-9]{1,8})$/.exec(name);
  return m ? `.${m[1]!.toLowerCase()}` : '';
}
