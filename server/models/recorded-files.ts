import { readFileSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What a pull got for files the catalog does not pin (no published sha256, or only a rounded size): kept
 * in the model's folder, so every later check (installed, verify, a pull again) holds the file to the
 * bytes of that first download rather than to nothing.
 */
export interface RecordedFile {
  size: number;
  sha256: string;
  url: string;
  recorded_at: string;
}

export type RecordedFiles = Record<string, RecordedFile>;

const RECORD = 'pulled-files.json';

const parse = (text: string | undefined): RecordedFiles => {
  if (text === undefined) return {};
  try {
    const value = JSON.parse(text) as { files?: RecordedFiles };
    return value.files ?? {};
  } catch {
    // A record cut short (a crash while writing it) vouches for nothing: the files are downloaded again.
    return {};
  }
};

export async function readRecordedFiles(modelDir: string): Promise<RecordedFiles> {
  return parse(await readFile(join(modelDir, RECORD), 'utf8').catch(() => undefined));
}

export function readRecordedFilesSync(modelDir: string): RecordedFiles {
  try {
    return parse(readFileSync(join(modelDir, RECORD), 'utf8'));
  } catch {
    return {};
  }
}

/** Adds (or replaces) one file's record; written beside and renamed, so a reader never sees half of it. */
export async function recordFile(modelDir: string, path: string, file: RecordedFile): Promise<void> {
  const files = { ...(await readRecordedFiles(modelDir)), [path]: file };
  const tmp = join(modelDir, `${RECORD}.${process.pid}.tmp`);
  await writeFile(tmp, `${JSON.stringify({ files }, null, 2)}\n`);
  await rename(tmp, join(modelDir, RECORD));
}
