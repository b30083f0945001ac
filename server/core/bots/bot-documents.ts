import { createHash, randomUUID } from 'node:crypto';
import { closeSync, copyFileSync, openSync, readdirSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { FileStore } from '../../store/file-store.js';
import type { JobSource } from '../../store/repos/bots-repo.js';
import type { Store } from '../../store/store.js';
import { isoNow, type Clock } from '../clock.js';
import { AppError, describeFailure } from '../errors.js';
import { sniffFormat } from '../extract/sniff.js';
import type { DocumentFormat } from '../extract/types.js';
import type { JobsService } from '../jobs/jobs-service.js';
import type { GuardedFetch } from '../net/types.js';
import type { TaskPool } from '../pool.js';
import { readLink } from '../sources/link-reader.js';
import { encyclopediaApiUrl, searchEncyclopedia } from '../sources/mediawiki.js';
import type { BotsService } from './bots-service.js';
import { documentRootsOf, realRoots, resolveInRoots } from './document-roots.js';

export interface BotDocumentsDeps {
  store: Store;
  files: FileStore;
  jobs: JobsService;
  bots: BotsService;
  net: GuardedFetch;
  clock: Clock;
  pool: Pick<TaskPool, 'readablePage'>;
  settings: {
    document_roots: readonly string[];
    max_folder_files: number;
    max_upload_bytes: number;
    chunk_size: number;
    chunk_overlap: number;
    encyclopedia_url: string;
  };
}

/** What adding one document answered: its job, or a failure saying why. */
export interface AddedDocument {
  job_id: string | null;
  /** pending (a new job), duplicate (the bot already has this content: its job), failed. */
  status: 'pending' | 'duplicate' | 'failed';
  source: string;
  error?: { code: string; message: string };
}

/** A document copied into the tmp folder, with the first bytes its format is told by and its hash. */
interface TmpFile {
  tmpPath: string;
  name: string;
  head: Uint8Array;
  hash: string;
  size: number;
}

const sha256 = (data: Uint8Array | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * A bot's documents are jobs of the jobs pipeline carrying its bot_id: files by path (a folder adds each
 * document in it), links read through the guarded fetch, and encyclopedia articles. The same content twice
 * in one bot is added once.
 */
export function createBotDocuments(d: BotDocumentsDeps) {
  const roots = d.settings.document_roots;

  /** The bot's live job with this content, if any (a failed or cancelled one may be added again). */
  const existing = (botId: string, fileHash: string): Promise<string | null> =>
    d.store.bots.liveDocumentWithHash(botId, fileHash);

  // The look for the same content and the job made after it run one at a time per bot: two requests adding
  // one file at once make one job, and the later is answered with it as a duplicate.
  const adding = new Map<string, Promise<unknown>>();
  function oneAtATime<T>(botId: string, f: () => Promise<T>): Promise<T> {
    const next = (adding.get(botId) ?? Promise.resolve()).then(f);
    const settled = next.catch(() => undefined);
    adding.set(botId, settled);
    void settled.then(() => {
      if (adding.get(botId) === settled) adding.delete(botId);
    });
    return next;
  }

  /** Makes a job of a file already in the tmp folder; the caller has hashed it. */
  function createJob(botId: string, file: TmpFile, source: JobSource): Promise<AddedDocument> {
    return oneAtATime(botId, () => createJobNow(botId, file, source));
  }

  async function createJobNow(
    botId: string,
    { tmpPath, name, head, hash, size }: TmpFile,
    source: JobSource,
  ): Promise<AddedDocument> {
    const label = source.url ?? source.title ?? source.path ?? name;
    const dup = await existing(botId, hash);
    if (dup) {
      rmSync(tmpPath, { force: true });
      return { job_id: dup, status: 'duplicate', source: label };
    }
    const format = sniffFormat(head, name);
    if (!format) {
      rmSync(tmpPath, { force: true });
      return failed(
        label,
        new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `${name} is not a PDF, DOCX, XLSX, PPTX, CSV, HTML, Markdown, text or image document`,
        ),
      );
    }
    const job = await d.jobs.create({
      tmpPath,
      sourceFile: name.slice(0, 255),
      format,
      fileHash: hash,
      sizeBytes: size,
      options: { chunk_size: d.settings.chunk_size, chunk_overlap: d.settings.chunk_overlap },
      botId,
      source,
    });
    return { job_id: job.job_id, status: 'pending', source: label };
  }

  function fromBytes(botId: string, bytes: Uint8Array, name: string, source: JobSource): Promise<AddedDocument> {
    const tmpPath = join(d.files.tmpDir, `bot-${randomUUID()}`);
    writeFileSync(tmpPath, bytes);
    return createJob(
      botId,
      { tmpPath, name, head: bytes.subarray(0, 64 * 1024), hash: sha256(bytes), size: bytes.length },
      source,
    );
  }

  async function fromFile(botId: string, path: string, size: number, review: boolean): Promise<AddedDocument> {
    if (size > d.settings.max_upload_bytes)
      return failed(
        path,
        new AppError('FILE_TOO_LARGE', `${path} is larger than the ${d.settings.max_upload_bytes}-byte limit`),
      );
    if (size === 0) return failed(path, new AppError('FILE_REQUIRED', `${path} is empty`));
    const tmpPath = join(d.files.tmpDir, `bot-${randomUUID()}`);
    copyFileSync(path, tmpPath);
    const head = new Uint8Array(Math.min(size, 64 * 1024));
    const fd = openSync(tmpPath, 'r');
    const hash = createHash('sha256');
    try {
      readSync(fd, head, 0, head.length, 0);
      const buf = Buffer.alloc(1 << 20);
      for (let pos = 0, n: number; (n = readSync(fd, buf, 0, buf.length, pos)) > 0; pos += n)
        hash.update(buf.subarray(0, n));
    } finally {
      closeSync(fd);
    }
    return createJob(
      botId,
      { tmpPath, name: basename(path), head, hash: hash.digest('hex'), size },
      { kind: 'path', path, review },
    );
  }

  function failed(source: string, err: unknown): AddedDocument {
    return { job_id: null, status: 'failed', source, error: describeFailure(err) };
  }

  /** Files of a folder, depth first in name order, hidden entries skipped, at most `cap`. */
  function walk(dir: string, cap: number): { files: string[]; more: boolean } {
    const out: string[] = [];
    const stack = [dir];
    while (stack.length) {
      const cur = stack.pop()!;
      const entries = readdirSync(cur, { withFileTypes: true })
        .filter((e) => !e.name.startsWith('.'))
        .sort((a, b) => a.name.localeCompare(b.name));
      const folders: string[] = [];
      for (const e of entries) {
        const p = join(cur, e.name);
        // A link to a file is followed (its target is checked against the roots like any path); a link to
        // a folder is not, so a link back up the tree cannot make the walk go round.
        if (e.isDirectory()) folders.push(p);
        else if (e.isFile() || (e.isSymbolicLink() && isFile(p))) {
          // Past the cap, the files kept are the first in name order: what a person listing the folder sees first.
          if (out.length >= cap) return { files: out.sort(), more: true };
          out.push(p);
        }
      }
      // Reversed onto the stack so the subfolders are walked in name order too.
      stack.push(...folders.reverse());
    }
    return { files: out.sort(), more: false };
  }

  function isFile(p: string): boolean {
    try {
      return statSync(p).isFile();
    } catch {
      return false;
    }
  }

  return {
    /** One file, or every document of a folder (recursively, capped). */
    async addPath(botId: string, path: string, review = false) {
      await d.bots.get(botId);
      const allowed = documentRootsOf(roots);
      const { real, stat } = resolveInRoots(path, allowed);
      if (stat.isFile()) {
        const added = await fromFile(botId, real, stat.size, review);
        if (added.status === 'failed')
          throw new AppError(
            (added.error?.code ?? 'VALIDATION_FAILED') as 'VALIDATION_FAILED',
            added.error?.message ?? 'the file cannot be added',
          );
        return { single: true as const, added };
      }
      const { files, more } = walk(real, d.settings.max_folder_files);
      const documents: AddedDocument[] = [];
      // The roots are resolved once for the folder, not again for each of its files.
      const allowedReal = realRoots(allowed);
      for (const f of files) {
        // Each file on its own: one outside the roots (a link out) or of no readable kind is listed with why.
        try {
          const resolved = resolveInRoots(f, allowed, allowedReal);
          documents.push(await fromFile(botId, resolved.real, resolved.stat.size, review));
        } catch (err) {
          documents.push(failed(f, err));
        }
      }
      return { single: false as const, documents, truncated: more, max_files: d.settings.max_folder_files };
    },

    /**
     * A file uploaded through the API, already streamed to the tmp folder, hashed and sniffed (receiveUpload):
     * the bot's job, or its existing one when it holds this content already.
     */
    async addUpload(
      botId: string,
      upload: { tmpPath: string; sourceFile: string; format: DocumentFormat; fileHash: string; sizeBytes: number },
      review = false,
    ): Promise<AddedDocument & { job_id: string; status: 'pending' | 'duplicate' }> {
      await d.bots.get(botId);
      return oneAtATime(botId, async () => {
        const dup = await existing(botId, upload.fileHash);
        if (dup) {
          rmSync(upload.tmpPath, { force: true });
          return { job_id: dup, status: 'duplicate' as const, source: upload.sourceFile };
        }
        const job = await d.jobs.create({
          ...upload,
          options: { chunk_size: d.settings.chunk_size, chunk_overlap: d.settings.chunk_overlap },
          botId,
          source: { kind: 'upload', review, sha256: upload.fileHash },
        });
        return { job_id: job.job_id, status: 'pending' as const, source: upload.sourceFile };
      });
    },

    /** A document the server writes itself (the chat-training review document). */
    async addBytes(botId: string, bytes: Uint8Array, name: string, source: JobSource): Promise<AddedDocument> {
      await d.bots.get(botId);
      return fromBytes(botId, bytes, name, source);
    },

    async addLinks(botId: string, links: string[], review = false, signal?: AbortSignal) {
      await d.bots.get(botId);
      const documents: (AddedDocument & { url: string; final_url: string | null })[] = [];
      for (const url of links) {
        try {
          const reduce = (html: string, pageUrl: string) => d.pool.readablePage({ html, url: pageUrl }, signal);
          const doc = await readLink(d.net, url, {
            clock: d.clock,
            signal,
            maxBytes: d.settings.max_upload_bytes,
            reduce,
          });
          const added = await fromBytes(botId, doc.bytes, doc.file_name, {
            kind: 'link',
            review,
            url: doc.url,
            final_url: doc.final_url,
            sha256: doc.sha256,
            fetched_at: doc.fetched_at,
            ...(doc.title ? { title: doc.title } : {}),
          });
          documents.push({ ...added, source: url, url, final_url: doc.final_url });
        } catch (err) {
          documents.push({ ...failed(url, err), url, final_url: null });
        }
      }
      if (documents.every((x) => x.status === 'failed')) {
        // Every link refused by the outbound policy is the caller's to fix (403), not a remote failure.
        if (documents.every((x) => x.error?.code === 'URL_NOT_ALLOWED')) {
          throw new AppError(
            'URL_NOT_ALLOWED',
            `no link may be fetched: ${documents.map((x) => `${x.url}: ${x.error?.message}`).join('; ')}`,
            { documents },
          );
        }
        throw new AppError(
          'LINK_FETCH_FAILED',
          `no link could be read: ${documents.map((x) => `${x.url}: ${x.error?.message}`).join('; ')}`,
          { documents },
        );
      }
      return documents;
    },

    async addArticles(
      botId: string,
      query: string,
      opts: { language?: string; max_pages?: number; review?: boolean },
      signal?: AbortSignal,
    ) {
      await d.bots.get(botId);
      const api = encyclopediaApiUrl(d.settings.encyclopedia_url, opts.language);
      const articles = await searchEncyclopedia(d.net, api, query, {
        language: opts.language,
        maxPages: opts.max_pages ?? 2,
        signal,
      });
      const documents = [];
      // One after another: each duplicate check sees the articles added before it.
      for (const a of articles) {
        const added = await fromBytes(
          botId,
          new TextEncoder().encode(a.text),
          `${a.title.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').slice(0, 200)}.md`,
          {
            kind: 'encyclopedia',
            review: opts.review ?? false,
            url: a.url,
            title: a.title,
            revision_id: a.revision_id,
            fetched_at: isoNow(d.clock),
          },
        );
        documents.push({ ...added, title: a.title, url: a.url, revision_id: a.revision_id });
      }
      return documents;
    },
  };
}
export type BotDocuments = ReturnType<typeof createBotDocuments>;
