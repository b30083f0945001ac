import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLocalFolderStore } from '../../server/store/objects/local-folder.js';
import { checkObjectStore, openObjectStore } from '../../server/store/objects/open.js';
import { tempDir } from '../helpers/app.js';
import { objectStoreContract } from './objects-contract.js';

// The contract on a folder (the default store), each case in a new temporary folder.
describe('local folder object store', () => {
  objectStoreContract(async () => createLocalFolderStore(join(tempDir(), 'objects')));

  it('is the data folder itself when no object_store_url is set, so files/ and exports/ keep their paths', async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'files', 'job-1'), { recursive: true });
    writeFileSync(join(dataDir, 'files', 'job-1', 'original.pdf'), 'a document stored by an earlier version');
    writeFileSync(join(dataDir, 'lectern.db'), 'not an object');
    const store = openObjectStore(undefined, dataDir);
    expect(store.location).toBe(dataDir);
    expect((await store.get('files/job-1/original.pdf')).toString()).toBe('a document stored by an earlier version');
    expect(store.localPath('files/job-1/original.pdf')).toBe(join(dataDir, 'files', 'job-1', 'original.pdf'));
    expect(await store.deletePrefix('files/job-1')).toBe(1);
    await checkObjectStore(store);
    expect(readdirSync(dataDir).sort()).toEqual(['files', 'lectern.db']);
  });

  it('gives readers the object file itself, and writes through a hidden temporary file the listing never shows', async () => {
    const root = tempDir();
    const store = createLocalFolderStore(root);
    await store.put('files/job-1/original.pdf', Buffer.from('v1'));
    const path = store.localPath('files/job-1/original.pdf')!;
    expect(readFileSync(path, 'utf8')).toBe('v1');
    // A write in progress: its temporary file sits beside the target under a dot name until the source ends.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const source = Readable.from(
      (async function* () {
        yield Buffer.alloc(1024 * 1024, 1);
        await released;
        yield Buffer.alloc(3 * 1024 * 1024, 2);
      })(),
    );
    const writing = store.put('files/job-1/original.pdf', source);
    await expect
      .poll(() => readdirSync(join(root, 'files', 'job-1')).filter((n) => n.startsWith('.original.pdf.')).length)
      .toBe(1);
    expect((await store.list('files/job-1')).map((o) => [o.key, o.size])).toEqual([['files/job-1/original.pdf', 2]]);
    expect(readFileSync(path, 'utf8')).toBe('v1');
    release();
    await writing;
    expect(readFileSync(path).length).toBe(4 * 1024 * 1024);
    expect(readdirSync(join(root, 'files', 'job-1'))).toEqual(['original.pdf']);
  });

  it('fails a write on a path that is taken by a file with OBJECT_STORE_FAILED, leaving no temporary file', async () => {
    const root = tempDir();
    const store = createLocalFolderStore(root);
    await store.put('files/job-1', Buffer.from('a file where a folder should be'));
    await expect(store.put('files/job-1/original.pdf', Buffer.from('x'))).rejects.toMatchObject({
      code: 'OBJECT_STORE_FAILED',
      details: { op: 'put', reason: 'failed' },
    });
    expect(readdirSync(join(root, 'files'))).toEqual(['job-1']);
    await expect(checkObjectStore(createLocalFolderStore(join(root, 'files', 'job-1')))).rejects.toThrow(
      /^object store .*job-1: (ENOTDIR|EEXIST)/,
    );
  });
});
