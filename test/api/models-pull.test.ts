import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { createKey, lecternAsync } from '../helpers/keys-cli.js';
import { startModelMirror, type ModelMirror } from '../helpers/model-mirror.js';
import { sseEvents } from '../helpers/sse.js';
import { ensureTestModels } from '../helpers/test-models.js';
import { testStore } from '../helpers/test-database.js';

// POST /models/{id}/pull against a model mirror on a loopback port (the setting model_mirror_url) serving
// the real stories260K GGUF, the catalog's small chat model: progress, resume, cancel, joining, checksums.

const MODEL = 'stories260k';
const FILE = 'stories260K.gguf';
let server: TestServer;
let mirror: ModelMirror;
let gguf = '';
let size = 0;
let roots = '';

beforeAll(async () => {
  gguf = (await ensureTestModels()).stories260k.gguf;
  size = statSync(gguf).size;
  mirror = await startModelMirror([gguf]);
  roots = tempDir('lectern-model-roots-');
  server = await startServer({
    settings: {
      workers: 1,
      model_mirror_url: mirror.url,
      allowed_private_hosts: [mirror.host],
      document_roots: [roots],
    },
  });
});
afterAll(async () => {
  await server?.close();
  await mirror?.close();
});

const modelDir = () => join(server.dataDir, 'models', MODEL);
beforeEach(() => {
  rmSync(modelDir(), { recursive: true, force: true });
  mirror.requests.length = 0;
});

interface Event {
  event: string;
  data: any;
}

/** A pull as a client follows it: the events as they come, the whole list once the stream ends, and a way to hang up. */
function pull(key = server.key) {
  const controller = new AbortController();
  const events: Event[] = [];
  const waiters: { test: (e: Event) => boolean; ok: () => void }[] = [];
  const response = fetch(`${server.url}/models/${MODEL}/pull`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    signal: controller.signal,
  });
  const ended = (async () => {
    const res = await response;
    if (!res.body || !res.headers.get('content-type')?.startsWith('text/event-stream')) return events;
    try {
      for await (const e of sseEvents(res.body)) {
        events.push(e);
        for (const w of waiters.filter((x) => x.test(e))) w.ok();
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
    return events;
  })();
  return {
    response,
    ended,
    events,
    /** Resolves at the first event (already seen or to come) for which `test` holds. */
    until: (test: (e: Event) => boolean) =>
      new Promise<void>((ok) => (events.some(test) ? ok() : waiters.push({ test, ok }))),
    hangUp: () => controller.abort(),
  };
}

const models = async () => (await json(await server.call('GET', '/models'))).models as Record<string, any>[];
const status = async () => (await models()).find((m) => m.id === MODEL)!;

describe('POST /models/{id}/pull', () => {
  it('streams progress to done; the model is then installed, byte for byte, and a second pull fetches nothing', async () => {
    expect(await status()).toMatchObject({ installed: false, partial_bytes: 0, pull: null });
    const p = pull();
    expect((await p.response).status).toBe(200);
    const events = await p.ended;
    expect(events[0]).toEqual({ event: 'pull', data: { model_id: MODEL, joined: false } });
    const progress = events.filter((e) => e.event === 'progress').map((e) => e.data);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.every((d) => d.total_bytes === size && d.model_id === MODEL)).toBe(true);
    // Bytes only grow, and the whole file is checked before done.
    expect(progress.map((d) => d.received_bytes)).toEqual(
      [...progress.map((d) => d.received_bytes)].sort((a, b) => a - b),
    );
    expect(progress.at(-1)).toMatchObject({ phase: 'verify', file: FILE, file_bytes: size, received_bytes: size });
    expect(events.at(-1)).toEqual({ event: 'done', data: { id: MODEL, ok: true, files: [{ path: FILE, ok: true }] } });
    expect(readFileSync(join(modelDir(), FILE)).equals(readFileSync(gguf))).toBe(true);
    expect(await status()).toMatchObject({ installed: true, partial_bytes: 0, pull: null });
    expect(mirror.requests).toEqual([{ name: FILE, range: undefined }]);

    // Every event is one the OpenAPI document declares, with the data its schema says.
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    const ajv = new Ajv2020.default({ strict: false });
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    const branches = doc.paths['/models/{model_id}/pull'].post.responses['200'].content['text/event-stream'].schema
      .anyOf as any[];
    const declared = new Map(
      branches.map((b) => [b.properties.event.const ?? b.properties.event.enum[0], b.properties.data.contentSchema]),
    );
    expect([...declared.keys()].sort()).toEqual(['done', 'error', 'progress', 'pull']);
    for (const e of events) {
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(declared.get(e.event)).replaceAll('"#/components/', '"openapi#/components/')),
      );
      expect(validate(e.data), `${e.event}: ${ajv.errorsText(validate.errors)}`).toBe(true);
    }

    const again = await pull().ended;
    expect(again.at(-1)?.event).toBe('done');
    expect(mirror.requests).toHaveLength(1);
  });

  it('resumes a broken download from the bytes on disk with a Range request', async () => {
    mirror.plan(FILE, { cutAt: 400_000 });
    const broken = await pull().ended;
    expect(broken.at(-1)).toMatchObject({ event: 'error', data: { code: 'MODEL_DOWNLOAD_FAILED' } });
    expect(await status()).toMatchObject({ installed: false, partial_bytes: 400_000, pull: null });

    const resumed = await pull().ended;
    const first = resumed.find((e) => e.event === 'progress' && e.data.file === FILE)!;
    expect(first.data).toMatchObject({ phase: 'download', file_bytes: 400_000, file_total: size });
    expect(resumed.at(-1)?.event).toBe('done');
    expect(mirror.requests).toEqual([
      { name: FILE, range: undefined },
      { name: FILE, range: 'bytes=400000-' },
    ]);
    expect(readFileSync(join(modelDir(), FILE)).equals(readFileSync(gguf))).toBe(true);
  });

  it('one pull per model: a second caller joins it; DELETE cancels it for both, keeping the bytes; the next pull resumes', async () => {
    mirror.plan(FILE, { holdAt: 300_000 });
    const a = pull();
    await mirror.held();
    await a.until((e) => e.event === 'progress' && e.data.file_bytes === 300_000);
    const b = pull();
    await b.until((e) => e.event === 'progress');
    expect(b.events[0]).toEqual({ event: 'pull', data: { model_id: MODEL, joined: true } });
    expect(b.events[1]?.data).toMatchObject({ file: FILE, file_bytes: 300_000 });
    expect(mirror.requests).toHaveLength(1); // the joiner did not download anything itself
    expect((await status()).pull).toMatchObject({ file_bytes: 300_000, total_bytes: size });

    const cancelled = await server.call('DELETE', `/models/${MODEL}/pull`);
    expect(cancelled.status).toBe(204);
    for (const events of [await a.ended, await b.ended])
      expect(events.at(-1)).toMatchObject({ event: 'error', data: { code: 'PULL_CANCELLED' } });
    mirror.release();
    expect(await status()).toMatchObject({ installed: false, partial_bytes: 300_000, pull: null });
    expect(existsSync(join(modelDir(), FILE))).toBe(false);
    const none = await server.call('DELETE', `/models/${MODEL}/pull`);
    expect(none.status).toBe(404);
    expect((await json(none)).error.code).toBe('PULL_NOT_FOUND');

    const resumed = await pull().ended;
    expect(resumed.at(-1)?.event).toBe('done');
    expect(mirror.requests.at(-1)).toEqual({ name: FILE, range: 'bytes=300000-' });
    expect(readFileSync(join(modelDir(), FILE)).equals(readFileSync(gguf))).toBe(true);
  });

  it('stops when its only caller hangs up; what arrived stays for the next pull', async () => {
    mirror.plan(FILE, { holdAt: 200_000 });
    const a = pull();
    await mirror.held();
    await a.until((e) => e.event === 'progress' && e.data.file_bytes === 200_000);
    a.hangUp();
    // The pull ends on its own (nobody follows it): DELETE then finds nothing to cancel.
    for (let s = await status(); s.pull !== null; s = await status()) await new Promise((ok) => setImmediate(ok));
    mirror.release();
    expect(await status()).toMatchObject({ installed: false, partial_bytes: 200_000 });
  });

  it('refuses a file whose sha256 does not match: nothing is installed and nothing is kept', async () => {
    mirror.plan(FILE, { corrupt: true });
    const events = await pull().ended;
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { code: 'MODEL_CHECKSUM_MISMATCH' } });
    expect(await status()).toMatchObject({ installed: false, partial_bytes: 0 });
    expect(existsSync(join(modelDir(), FILE))).toBe(false);
  });

  it('unknown models are 404 before any stream; only an admin key may pull, cancel or import', async () => {
    const unknown = await server.call('POST', '/models/nope/pull');
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe('MODEL_NOT_FOUND');
    expect((await server.call('DELETE', '/models/nope/pull')).status).toBe(404);
    for (const role of ['reader', 'reviewer']) {
      const k = await createKey(server, `${role}-models`, role);
      const refused = await pull(k.secret).response;
      expect(refused.status).toBe(403);
      expect((await json(refused)).error.code).toBe('FORBIDDEN');
      const headers = { 'x-api-key': k.secret, 'content-type': 'application/json' };
      expect(
        (await fetch(`${server.url}/models/${MODEL}/pull`, { method: 'DELETE', headers: { 'x-api-key': k.secret } }))
          .status,
      ).toBe(403);
      expect(
        (
          await fetch(`${server.url}/models/${MODEL}/import`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ path: gguf }),
          })
        ).status,
      ).toBe(403);
      // They still see the catalog.
      expect((await fetch(`${server.url}/models`, { headers: { 'x-api-key': k.secret } })).status).toBe(200);
    }
    expect(mirror.requests).toHaveLength(0);
    expect(existsSync(modelDir())).toBe(false);
  });
});

describe('POST /models/{id}/import', () => {
  it('installs a file from inside document_roots, checked by sha256; refuses paths outside, wrong files and unknown models', async () => {
    mkdirSync(join(roots, 'downloads'), { recursive: true });
    copyFileSync(gguf, join(roots, 'downloads', FILE));
    writeFileSync(join(roots, 'downloads', 'other.gguf'), 'not the model');
    const outside = join(tempDir('lectern-outside-'), FILE);
    copyFileSync(gguf, outside);

    const far = await server.call('POST', `/models/${MODEL}/import`, { json: { path: outside } });
    expect(far.status).toBe(403);
    expect((await json(far)).error.code).toBe('PATH_NOT_ALLOWED');
    const wrong = await server.call('POST', `/models/${MODEL}/import`, {
      json: { path: join(roots, 'downloads', 'other.gguf') },
    });
    expect(wrong.status).toBe(422);
    expect((await json(wrong)).error.code).toBe('MODEL_CHECKSUM_MISMATCH');
    const absent = await server.call('POST', `/models/${MODEL}/import`, {
      json: { path: join(roots, 'nothing.gguf') },
    });
    expect(absent.status).toBe(404);
    // An id the catalog does not know names a chat model of your own: stories260K, a story model, has no chat template.
    const unknown = await server.call('POST', '/models/nope/import', {
      json: { path: join(roots, 'downloads', FILE) },
    });
    expect(unknown.status).toBe(422);
    expect((await json(unknown)).error.code).toBe('MODEL_NO_CHAT_TEMPLATE');
    expect((await server.call('POST', `/models/${MODEL}/import`, { json: {} })).status).toBe(400);
    expect(await status()).toMatchObject({ installed: false });

    const ok = await server.call('POST', `/models/${MODEL}/import`, { json: { path: join(roots, 'downloads') } });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ model_id: MODEL, imported: [FILE], missing: [], installed: true, custom: false });
    expect(await status()).toMatchObject({ installed: true });
    expect(readFileSync(join(modelDir(), FILE)).equals(readFileSync(gguf))).toBe(true);
  });

  it('installs an uploaded file (multipart), and refuses an upload that is not the model', async () => {
    const upload = (data: Uint8Array) => {
      const form = new FormData();
      form.append('file', new Blob([data as Uint8Array<ArrayBuffer>]), FILE);
      return server.call('POST', `/models/${MODEL}/import`, { body: form });
    };
    const bad = await upload(new TextEncoder().encode('not a gguf'));
    expect(bad.status).toBe(422);
    const tooBig = await upload(new Uint8Array(size + 1));
    expect(tooBig.status).toBe(413);
    expect(await status()).toMatchObject({ installed: false });
    const ok = await upload(readFileSync(gguf));
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({ installed: true, imported: [FILE] });
    expect(readFileSync(join(modelDir(), FILE)).equals(readFileSync(gguf))).toBe(true);
  });
});

// A desktop's folder has one owner, which commands go through; a team server's folder has none (its nodes
// share it, and commands open the database themselves), so this is a desktop case only.
describe.skipIf(testStore() === 'postgres')('lectern models pull with a server running', () => {
  it('goes through the server that owns the data folder: its pull, its mirror, one partial file', async () => {
    // The command itself knows no mirror: only the server's pull can reach it, so success shows who pulled.
    const r = await lecternAsync(['models', 'pull', MODEL, '--data-dir', server.dataDir, '--json'], {
      env: { SERVICE_API_KEY: server.key },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: MODEL, ok: true });
    expect(mirror.requests.length).toBeGreaterThan(0);
    expect(readFileSync(join(modelDir(), FILE)).equals(readFileSync(gguf))).toBe(true);
    expect(await status()).toMatchObject({ installed: true, pull: null });
  });
});
