/**
 * The object store contract: one list of cases written against the ObjectStore interface only, run on every
 * implementation (a local folder, a real S3 server). Each case opens a fresh, empty store; the factory gives
 * S3 stores a multipart threshold of 5 MiB so that the large cases take the multipart path.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObjectStore } from '../../server/store/objects/object-store.js';
import { checkObjectStore } from '../../server/store/objects/open.js';
import { tempDir } from '../helpers/app.js';

export type ObjectStoreFactory = () => Promise<ObjectStore>;

const MiB = 1024 * 1024;
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The bytes as a stream of 64 KiB chunks whose length is not told; it breaks off with `fail` after `failAfter` bytes. */
export function streamOf(bytes: Uint8Array, failAfter?: number, fail = new Error('the source broke off')): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += 64 * 1024) {
        if (failAfter !== undefined && at >= failAfter) throw fail;
        yield Buffer.from(bytes.subarray(at, at + 64 * 1024));
      }
    })(),
  );
}

export function objectStoreContract(open: ObjectStoreFactory): void {
  const opened: ObjectStore[] = [];
  const fresh = async (): Promise<ObjectStore> => {
    const store = await open();
    opened.push(store);
    return store;
  };
  afterEach(() => {
    for (const s of opened.splice(0)) s.close();
  });

  describe('object store contract', () => {
    it('writes an object, reads it back, tells its size, and deletes it', async () => {
      const store = await fresh();
      const bytes = Buffer.from('%PDF-1.7 a small document\n');
      expect(await store.put('files/job-1/original.pdf', bytes, { contentType: 'application/pdf' })).toEqual({
        key: 'files/job-1/original.pdf',
        size: bytes.length,
      });
      expect(await store.get('files/job-1/original.pdf')).toEqual(bytes);
      const head = await store.head('files/job-1/original.pdf');
      expect(head).toMatchObject({ key: 'files/job-1/original.pdf', size: bytes.length });
      expect(head!.modified).toBeInstanceOf(Date);
      expect(Math.abs(head!.modified.getTime() - Date.now())).toBeLessThan(10 * 60_000);
      if (head!.contentType !== undefined) expect(head!.contentType).toBe('application/pdf');
      expect(await store.exists('files/job-1/original.pdf')).toBe(true);
      await store.delete('files/job-1/original.pdf');
      expect(await store.exists('files/job-1/original.pdf')).toBe(false);
      expect(await store.list('files')).toEqual([]);
    });

    it('replaces an object whole, and keeps an empty one', async () => {
      const store = await fresh();
      await store.put('exports/job-1/export.zip', Buffer.from('a first, longer version'));
      await store.put('exports/job-1/export.zip', Buffer.from('second'));
      expect((await store.get('exports/job-1/export.zip')).toString()).toBe('second');
      await store.put('exports/job-1/empty', new Uint8Array(0));
      expect(await store.head('exports/job-1/empty')).toMatchObject({ size: 0 });
      expect((await store.get('exports/job-1/empty')).length).toBe(0);
      expect((await store.list('exports/job-1')).map((o) => [o.key, o.size])).toEqual([
        ['exports/job-1/empty', 0],
        ['exports/job-1/export.zip', 6],
      ]);
    });

    it('answers OBJECT_NOT_FOUND for a missing object, and deleting one is no error', async () => {
      const store = await fresh();
      const missing = { code: 'OBJECT_NOT_FOUND', details: { key: 'files/none/original.pdf' } };
      await expect(store.get('files/none/original.pdf')).rejects.toMatchObject(missing);
      await expect(store.getStream('files/none/original.pdf')).rejects.toMatchObject(missing);
      const dir = tempDir();
      await expect(store.download('files/none/original.pdf', join(dir, 'copy.pdf'))).rejects.toMatchObject(missing);
      expect(readdirSync(dir)).toEqual([]);
      expect(await store.head('files/none/original.pdf')).toBeUndefined();
      expect(await store.exists('files/none/original.pdf')).toBe(false);
      await store.delete('files/none/original.pdf');
      expect(await store.deletePrefix('files/none')).toBe(0);
      // A folder is not an object.
      await store.put('files/job-2/page-images/page-1-w800.png', Buffer.from('png'));
      expect(await store.exists('files/job-2/page-images')).toBe(false);
      await expect(store.get('files/job-2')).rejects.toMatchObject({ code: 'OBJECT_NOT_FOUND' });
    });

    it('lists a folder at any depth in key order, and nothing of a sibling whose name starts the same', async () => {
      const store = await fresh();
      const keys = [
        'files/job-1/page-images/page-2-w800.png',
        'files/job-1/original.pdf',
        'files/job-1/page-images/page-10-w800.png',
        'files/job-10/original.pdf',
        'files/job-1x',
        'exports/job-1/export.zip',
      ];
      for (const [i, key] of keys.entries()) await store.put(key, Buffer.alloc(i + 1, 7));
      expect(await store.list('files/job-1')).toEqual([
        { key: 'files/job-1/original.pdf', size: 2, modified: expect.any(Date) },
        { key: 'files/job-1/page-images/page-10-w800.png', size: 3, modified: expect.any(Date) },
        { key: 'files/job-1/page-images/page-2-w800.png', size: 1, modified: expect.any(Date) },
      ]);
      expect((await store.list('files/job-1/')).map((o) => o.key)).toEqual(
        (await store.list('files/job-1')).map((o) => o.key),
      );
      expect((await store.list('files')).map((o) => o.key)).toEqual([
        'files/job-1/original.pdf',
        'files/job-1/page-images/page-10-w800.png',
        'files/job-1/page-images/page-2-w800.png',
        'files/job-10/original.pdf',
        'files/job-1x',
      ]);
      expect(await store.list('files/job-2')).toEqual([]);
      expect(await store.list('files/job-1x')).toEqual([]);
    });

    it('deletes everything under a prefix and nothing beside it', async () => {
      const store = await fresh();
      for (const key of [
        'files/job-1/original.pdf',
        'files/job-1/page-images/page-1-w800.png',
        'files/job-1/page-images/page-2-w800.png',
        'files/job-10/original.pdf',
        'files/job-1x',
      ]) {
        await store.put(key, Buffer.from(key));
      }
      expect(await store.deletePrefix('files/job-1')).toBe(3);
      expect((await store.list('files')).map((o) => o.key)).toEqual(['files/job-10/original.pdf', 'files/job-1x']);
      expect(await store.exists('files/job-1/original.pdf')).toBe(false);
      // An object named like the prefix is not under it.
      expect(await store.deletePrefix('files/job-1x')).toBe(0);
      expect(await store.exists('files/job-1x')).toBe(true);
    });

    it('writes a stream whose length it is not told, and reads it back as a stream', async () => {
      const store = await fresh();
      const bytes = randomBytes(300 * 1024 + 17);
      expect(await store.put('files/job-3/original.tiff', streamOf(bytes), { contentType: 'image/tiff' })).toEqual({
        key: 'files/job-3/original.tiff',
        size: bytes.length,
      });
      const chunks: Buffer[] = [];
      for await (const chunk of await store.getStream('files/job-3/original.tiff')) chunks.push(chunk as Buffer);
      expect(sha256(Buffer.concat(chunks))).toBe(sha256(bytes));
      await store.put('files/job-3/notes.txt', Readable.from(['one ', 'two ', 'three']));
      expect(await text(await store.getStream('files/job-3/notes.txt'))).toBe('one two three');
    });

    it('writes from a local file, copied or moved, and downloads to a local file that appears whole', async () => {
      const store = await fresh();
      const dir = tempDir();
      const upload = join(dir, 'upload-1');
      const bytes = randomBytes(200 * 1024);
      writeFileSync(upload, bytes);
      expect(
        await store.putFile('files/job-4/original.docx', upload, {
          contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        }),
      ).toEqual({
        key: 'files/job-4/original.docx',
        size: bytes.length,
      });
      expect(existsSync(upload)).toBe(true);
      expect(await store.putFile('files/job-5/original.docx', upload, { move: true })).toMatchObject({
        size: bytes.length,
      });
      expect(existsSync(upload)).toBe(false);
      const cache = join(dir, 'cache', 'job-5');
      expect(await store.download('files/job-5/original.docx', join(cache, 'original.docx'))).toEqual({
        size: bytes.length,
      });
      expect(sha256(readFileSync(join(cache, 'original.docx')))).toBe(sha256(bytes));
      expect(readdirSync(cache)).toEqual(['original.docx']);
      expect(sha256(await store.get('files/job-4/original.docx'))).toBe(sha256(bytes));
    });

    it('writes and reads a 20 MiB object, from bytes and from a stream', async () => {
      const store = await fresh();
      const bytes = randomBytes(20 * MiB + 3);
      await store.put('files/job-6/original.pdf', bytes, { contentType: 'application/pdf' });
      await store.put('files/job-7/original.pdf', streamOf(bytes));
      for (const key of ['files/job-6/original.pdf', 'files/job-7/original.pdf']) {
        expect(await store.head(key)).toMatchObject({ size: bytes.length });
        expect(sha256(await store.get(key))).toBe(sha256(bytes));
      }
      const dir = tempDir();
      await store.download('files/job-7/original.pdf', join(dir, 'original.pdf'));
      expect(sha256(readFileSync(join(dir, 'original.pdf')))).toBe(sha256(bytes));
    });

    it('leaves nothing of a write whose source breaks off, small or large, and the old object as it was', async () => {
      const store = await fresh();
      const broke = new Error('the upload broke off');
      await store.put('files/job-8/original.pdf', Buffer.from('the first version'));
      const large = randomBytes(12 * MiB);
      await expect(store.put('files/job-8/original.pdf', streamOf(large, 11 * MiB, broke))).rejects.toBe(broke);
      await expect(store.put('files/job-9/original.pdf', streamOf(large, 11 * MiB, broke))).rejects.toBe(broke);
      await expect(store.put('files/job-9/small.pdf', streamOf(large, 100 * 1024, broke))).rejects.toBe(broke);
      expect((await store.get('files/job-8/original.pdf')).toString()).toBe('the first version');
      expect((await store.list('files')).map((o) => o.key)).toEqual(['files/job-8/original.pdf']);
      expect(await store.exists('files/job-9/original.pdf')).toBe(false);
    });

    it('refuses keys that are not relative paths of plain segments', async () => {
      const store = await fresh();
      for (const key of [
        '',
        '/files/a',
        'files//a',
        '../a',
        'files/../a',
        'files/.hidden',
        'files/a/',
        'files\\a',
        'files/a b',
        'files/ä',
      ]) {
        await expect(store.put(key, Buffer.from('x')), key).rejects.toThrow(/not an object key/);
        await expect(store.get(key), key).rejects.toThrow(/not an object key/);
      }
      await expect(store.list('')).rejects.toThrow(/not an object prefix/);
      await expect(store.deletePrefix('../')).rejects.toThrow(/not an object prefix/);
    });

    it('passes the start-up check', async () => {
      const store = await fresh();
      await checkObjectStore(store);
      await checkObjectStore(store);
    });
  });
}
