import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODEL_CATALOG, type ChatCatalogModel } from '../../server/models/catalog.js';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { startModelMirror, type ModelMirror } from '../helpers/model-mirror.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { sseEvents } from '../helpers/sse.js';

// A catalog entry published with a rounded size and no sha256 (as most GGUFs on Hugging Face are), pulled
// from a mirror on a loopback port serving a generated file: the announced size is checked against the
// rounded one, the sha256 the file arrived with is recorded, and later checks hold the file to it.

const FILE = 'unpinned-test.gguf';
const SIZE = 1_503_217;
const MODEL: ChatCatalogModel = {
  id: 'unpinned-test-q4_k_m',
  name: 'A file published as "1.5 MB", with no checksum',
  task: 'chat',
  licence: 'MIT',
  homepage: 'https://huggingface.co/example/unpinned-test',
  weights: 'q4_k_m',
  gguf: FILE,
  contextTokens: 512,
  kvBytesPerToken: 1024,
  testOnly: true,
  files: [
    {
      path: FILE,
      url: `https://huggingface.co/example/unpinned-test/resolve/main/${FILE}`,
      size: 1_500_000,
      approximate: true,
    },
  ],
};

let server: TestServer;
let mirror: ModelMirror;
let bytes: Buffer;
let sha256 = '';

beforeAll(async () => {
  const random = seededRandom(7);
  bytes = Buffer.from(Array.from({ length: SIZE }, () => Math.floor(random() * 256)));
  sha256 = createHash('sha256').update(bytes).digest('hex');
  const file = join(tempDir('lectern-unpinned-'), FILE);
  writeFileSync(file, bytes);
  mirror = await startModelMirror([file]);
  server = await startServer({
    settings: { workers: 1, model_mirror_url: mirror.url, allowed_private_hosts: [mirror.host] },
    catalog: [...MODEL_CATALOG, MODEL],
  });
});
afterAll(async () => {
  await server?.close();
  await mirror?.close();
});
beforeEach(() => void (mirror.requests.length = 0));

const pull = async () => {
  const res = await fetch(`${server.url}/models/${MODEL.id}/pull`, {
    method: 'POST',
    headers: { 'x-api-key': server.key },
  });
  const events: { event: string; data: any }[] = [];
  for await (const e of sseEvents(res.body!)) events.push(e);
  return events.at(-1)!;
};
const status = async () =>
  (await json(await server.call('GET', '/models'))).models.find((m: { id: string }) => m.id === MODEL.id);
const installedFile = () => join(server.dataDir, 'models', MODEL.id, FILE);

describe('pulling a file the catalog does not pin', () => {
  it('refuses a host announcing a size far from the published one (shorter or longer), keeping nothing', async () => {
    expect((await status()).files[0]).toMatchObject({
      size: 1_500_000,
      size_approximate: true,
      sha256: null,
      checksum: null,
    });
    for (const size of [1_200_000, 2_000_000]) {
      mirror.plan(FILE, { bytes: size });
      const last = await pull();
      expect(last.event).toBe('error');
      expect(last.data.code).toBe('MODEL_CHECKSUM_MISMATCH');
      expect(last.data.message).toContain(`announces ${size} bytes; expected about 1500000 bytes`);
      expect(await status()).toMatchObject({ installed: false, partial_bytes: 0 });
    }
  });

  it('keeps the file and records its exact size and sha256; a later pull, verify and listing use the record', async () => {
    const done = await pull();
    expect(done).toEqual({ event: 'done', data: { id: MODEL.id, ok: true, files: [{ path: FILE, ok: true }] } });
    expect(readFileSync(installedFile()).equals(bytes)).toBe(true);
    expect(await status()).toMatchObject({
      installed: true,
      size_bytes: SIZE,
      size_approximate: false,
      files: [{ path: FILE, size: SIZE, size_approximate: false, sha256, checksum: 'recorded' }],
    });
    expect(mirror.requests).toHaveLength(1);

    // The file changes on disk (same size): a pull finds it does not match the record and fetches it again…
    const changed = Buffer.from(bytes).fill(1, 0, 64);
    writeFileSync(installedFile(), changed);
    // …from a host that now serves other bytes under the name: refused against the recorded sha256.
    mirror.plan(FILE, { corrupt: true });
    const refused = await pull();
    expect(refused.event).toBe('error');
    expect(refused.data.code).toBe('MODEL_CHECKSUM_MISMATCH');
    expect(refused.data.message).toContain(`expected ${SIZE} bytes with sha256 ${sha256}`);

    const again = await pull();
    expect(again.event).toBe('done');
    expect(readFileSync(installedFile()).equals(bytes)).toBe(true);
    expect(mirror.requests.map((r) => r.name)).toEqual([FILE, FILE, FILE]);
  });
});
