import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createApp, type LecternApp } from '../../server/app.js';
import { providerKeysFrom } from '../../server/core/chat/chat-providers.js';
import type { CatalogModel } from '../../server/models/catalog.js';
import { parseSettings, type Settings } from '../../server/schemas/settings.js';
import { databaseFor, objectStoreFor, TEST_TASK_LEASE_MS } from './test-database.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const fixturesDir = resolve(repoRoot, '../shared/fixtures');
/** Built by the global setup (scripts/build-node.mjs): tests run the same worker bundle as `lectern serve`. */
export const workerFile = join(repoRoot, 'dist', 'worker.js');

export interface TestServer {
  app: LecternApp;
  url: string;
  key: string;
  dataDir: string;
  /** fetch against the server with the API key; `json` bodies are sent as JSON. */
  call(
    method: string,
    path: string,
    opts?: { json?: unknown; body?: BodyInit; headers?: Record<string, string> },
  ): Promise<Response>;
  upload(name: string, data: Uint8Array, fields?: Record<string, string>): Promise<Response>;
  /** Polls GET /jobs/{id} until the status is one of `until`; returns the job. */
  waitFor(jobId: string, until?: string[], timeoutMs?: number): Promise<Record<string, any>>;
  close(): Promise<void>;
}

/** What a test does with a running server over HTTP, whether it runs in this process or as a child. */
export type ServerClient = Pick<TestServer, 'call' | 'upload' | 'waitFor'>;

export function serverClient(url: string, key: string): ServerClient {
  const call: ServerClient['call'] = (method, path, o = {}) => {
    const headers: Record<string, string> = { 'x-api-key': key, ...o.headers };
    let body = o.body;
    if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    }
    return fetch(url + path, { method, headers, body });
  };
  return {
    call,
    upload(name, data, fields = {}) {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([data as Uint8Array<ArrayBuffer>]), name);
      return call('POST', '/jobs', { body: form });
    },
    async waitFor(jobId, until = ['ready_for_review', 'failed', 'cancelled'], timeoutMs = 120_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const job = (await (await call('GET', `/jobs/${jobId}`)).json()) as Record<string, any>;
        if (until.includes(job.status)) return job;
        if (Date.now() > end) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
// Tests read the API's answers loosely typed: the assertions say what they must hold.
export const json = async (res: Response): Promise<any> => res.json();

export function tempDir(prefix = 'lectern-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Starts the real application (real SQLite, or PostgreSQL under LECTERN_TEST_STORE=postgres; the real worker
 * pool) listening on a free loopback port.
 */
export async function startServer(
  opts: {
    dataDir?: string;
    settings?: Partial<Settings>;
    key?: string;
    desktopOrigin?: string;
    chatKey?: string;
    /** More models than the built-in catalog's (a file a test serves from its own mirror). */
    catalog?: readonly CatalogModel[];
  } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const key = opts.key ?? randomBytes(16).toString('hex');
  const database_url = opts.settings?.database_url ?? (await databaseFor(dataDir));
  // A server given its own database keeps its files as it was told (in its folder unless object_store_url).
  const object_store_url =
    opts.settings?.object_store_url ?? (opts.settings?.database_url ? undefined : objectStoreFor(dataDir));
  // No start-up warm-up by default: tests start many servers and time none of them.
  const settings = parseSettings({
    data_dir: dataDir,
    port: 0,
    workers: 2,
    warm_up_rounds: 0,
    log_level: 'silent',
    ...(database_url ? { database_url, task_lease_ms: TEST_TASK_LEASE_MS } : {}),
    ...(object_store_url ? { object_store_url } : {}),
    ...opts.settings,
  });
  const app = await createApp({
    settings,
    serviceApiKey: key,
    chatKey: opts.chatKey,
    providerKeys: providerKeysFrom(process.env),
    workerFile,
    logger: pino({ level: 'silent' }),
    desktopOrigin: opts.desktopOrigin,
    catalog: opts.catalog,
  });
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  // As `lectern serve` does: commands run against this data folder talk to this server.
  app.published(url);
  return {
    app,
    url,
    key,
    dataDir,
    ...serverClient(url, key),
    async close() {
      await app.close();
    },
  };
}

/** A server that must generate and store its own key, as when SERVICE_API_KEY is unset. */
export async function startServerWithoutKey(dataDir = tempDir()) {
  const database_url = await databaseFor(dataDir);
  const object_store_url = objectStoreFor(dataDir);
  const settings = parseSettings({
    data_dir: dataDir,
    port: 0,
    workers: 1,
    log_level: 'silent',
    ...(database_url ? { database_url } : {}),
    ...(object_store_url ? { object_store_url } : {}),
  });
  const app = await createApp({
    settings,
    providerKeys: providerKeysFrom(process.env),
    workerFile,
    logger: pino({ level: 'silent' }),
  });
  const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, dataDir, close: () => app.close() };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Uploads a document and waits until it is ready for review. */
export async function ingest(server: TestServer, name: string, data: Uint8Array, fields?: Record<string, string>) {
  const res = await server.upload(name, data, fields);
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  const { job_id } = (await res.json()) as { job_id: string };
  const job = await server.waitFor(job_id);
  if (job.status !== 'ready_for_review') throw new Error(`job ended ${job.status}: ${JSON.stringify(job.error)}`);
  return job;
}

/**
 * Polls GET /jobs/{id} until the job is being read and has got through `minPages` pages; throws if it ends
 * first or shows no such progress within `timeoutMs` (an upper bound: the wait ends on the progress itself).
 */
export async function waitForProgress(
  server: Pick<ServerClient, 'call'>,
  jobId: string,
  minPages = 1,
  timeoutMs = 120_000,
): Promise<Record<string, any>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = (await (await server.call('GET', `/jobs/${jobId}`)).json()) as Record<string, any>;
    if (job.status === 'processing' && job.progress.pages_done >= minPages) return job;
    if (!['queued', 'processing'].includes(job.status))
      throw new Error(`job ${jobId} ended ${job.status} before ${minPages} pages were read`);
    if (Date.now() > end) throw new Error(`job ${jobId} read no ${minPages} pages in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * One page of a list the API answers as a JSON array (blocks, chunks, audit), with its total from the
 * X-Total-Count header; the bots and pages lists, answered as {items, total}, are read as they are.
 */
export async function listPage(
  server: Pick<TestServer, 'call'>,
  path: string,
): Promise<{ items: any[]; total: number }> {
  const res = await server.call('GET', path);
  const body = (await res.json()) as any[] | { items: any[]; total: number };
  if (!Array.isArray(body)) return body;
  return { items: body, total: Number(res.headers.get('x-total-count')) };
}

/** Every item of a paginated list, page by page. */
export async function listAll(server: TestServer, path: string, pageSize = 500): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  for (let skip = 0; ; skip += pageSize) {
    const sep = path.includes('?') ? '&' : '?';
    const page = await listPage(server, `${path}${sep}skip=${skip}&limit=${pageSize}`);
    items.push(...page.items);
    if (items.length >= page.total || page.items.length === 0) return items;
  }
}
