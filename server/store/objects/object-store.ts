/**
 * What Lectern keeps as files (uploaded originals, rendered page images, exports), behind one interface with
 * two homes: a folder (the default; on a team, one every node mounts) or an S3-compatible bucket.
 *
 * Keys are relative paths of plain segments (`files/<job id>/original.pdf`): letters, digits, `_`, `-` and
 * `.`, never starting with a dot, so a key is the same file name on every platform and in every bucket, and
 * the dot names stay free for a folder's temporary files. A prefix is a folder of keys: `files/<job id>`
 * holds `files/<job id>/original.pdf` but not `files/<job id>2/…`.
 *
 * Every write is whole or absent: a reader never sees half an object, and a write that fails leaves nothing.
 */
import type { Readable } from 'node:stream';

/** A stored object as `head` and `list` describe it. */
export interface ObjectInfo {
  key: string;
  size: number;
  modified: Date;
  /** The type given to `put`; a folder keeps none. */
  contentType?: string;
}

/** What `put` takes: bytes, a Node stream, or any async iterable of byte chunks (its length need not be known). */
export type ObjectSource = Uint8Array | Readable | AsyncIterable<Uint8Array>;

export interface PutOptions {
  contentType?: string;
}

export interface PutFileOptions extends PutOptions {
  /** Take the local file instead of copying it: it is gone once the object is written (kept if the write fails). */
  move?: boolean;
}

export interface ObjectStore {
  /** Where the objects are, for messages: `s3://bucket/prefix` or the folder's path. */
  readonly location: string;
  /** Writes the object whole, replacing any object of that key. */
  put(key: string, body: ObjectSource, opts?: PutOptions): Promise<{ key: string; size: number }>;
  /** Writes the object from a local file (an upload received into a temporary file). */
  putFile(key: string, path: string, opts?: PutFileOptions): Promise<{ key: string; size: number }>;
  /** The object's bytes; `OBJECT_NOT_FOUND` when there is none. */
  get(key: string): Promise<Buffer>;
  /** The object as a stream, once it is known to exist (`OBJECT_NOT_FOUND` rejects here, not in the stream). */
  getStream(key: string): Promise<Readable>;
  /** Copies the object into a local file, which appears whole or not at all. */
  download(key: string, dest: string): Promise<{ size: number }>;
  /** The object's own file when the store is a local folder (read it in place, never write it); else undefined. */
  localPath(key: string): string | undefined;
  /** Size and time of the object, or undefined when there is none. */
  head(key: string): Promise<ObjectInfo | undefined>;
  exists(key: string): Promise<boolean>;
  /** Removes one object; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object under the prefix (a job's folder) and says how many. */
  deletePrefix(prefix: string): Promise<number>;
  /** Every object under the prefix, at any depth, ordered by key. */
  list(prefix: string): Promise<ObjectInfo[]>;
  /** Lets go of connections; the store is not used afterwards. */
  close(): void;
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Checks a key (or, for `list` and `deletePrefix`, a prefix): a wrong one is a programming error, not the user's. */
export function checkKey(key: string, what: 'key' | 'prefix' = 'key'): string {
  const path = what === 'prefix' ? key.replace(/\/$/, '') : key;
  const segments = path.split('/');
  if (path.length === 0 || path.length > 512 || !segments.every((s) => s.length <= 255 && SEGMENT.test(s))) {
    throw new TypeError(
      `not an object ${what}: ${JSON.stringify(key)} (relative path of letters, digits, '_', '-' and '.', no segment starting with '.')`,
    );
  }
  return path;
}
