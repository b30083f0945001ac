import { expect } from 'vitest';
import { join } from 'node:path';
import { createEmbedder, type Embedder, type EmbedderOptions } from '../../server/core/embedding/onnx-embedder.js';
import { DEFAULT_NET_POLICY } from '../../server/core/net/defaults.js';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import { createModelManager } from '../../server/models/manager.js';
import { enc, ingest, json, type ServerClient, startServer, type TestServer, tempDir } from './app.js';
import { ensureTestModels } from './test-models.js';

/** The real int8 MiniLM the fetch script provides; the catalog knows it by this id. */
export const TEST_MODEL = 'all-minilm-l6-v2-int8-pypi';

/** Installs the real test weights into a server's data dir, as `lectern models import` would. */
export async function installTestModel(dataDir: string): Promise<void> {
  const { minilm } = await ensureTestModels();
  // An import never goes out: the default policy, which allows no private host, is enough.
  await createModelManager({
    modelsDir: join(dataDir, 'models'),
    net: createGuardedFetch(DEFAULT_NET_POLICY),
  }).importFrom(TEST_MODEL, minilm.dir);
}

/**
 * The real MiniLM test weights in this process's ONNX embedder, set up as the catalog runs them (mean pooling, 256
 * tokens) unless `options` say otherwise: what a test compares a server's vectors and scores with.
 */
export async function miniLmEmbedder(options: Partial<EmbedderOptions> = {}): Promise<Embedder> {
  const { minilm } = await ensureTestModels();
  return createEmbedder({
    modelPath: minilm.onnx,
    tokenizerPath: minilm.tokenizer,
    pooling: 'mean',
    maxTokens: 256,
    ...options,
  });
}

/** A server of its own data folder with the test weights installed and named as its embedding model. */
export async function startServerWithModel(
  settings: NonNullable<Parameters<typeof startServer>[0]>['settings'] = {},
  dataDir = tempDir(),
): Promise<TestServer> {
  await installTestModel(dataDir);
  return startServer({ dataDir, settings: { embedding_model: TEST_MODEL, ...settings } });
}

/** Uploads a Markdown document, approves everything by finalizing, and returns the finalized job. */
export async function finalizedJob(server: TestServer, name: string, markdown: string) {
  const job = await ingest(server, name, enc(markdown));
  const res = await server.call('POST', `/jobs/${job.job_id}/finalize`, {
    json: { finalize_policy: 'auto_approve_pending' },
  });
  if (res.status !== 200) throw new Error(`finalize answered ${res.status}: ${await res.text()}`);
  return job;
}

/** POST embed, expecting 202, then waits until the job is indexed (or back to rest with an error). */
export async function embedAndWait(server: TestServer, jobId: string, body: Record<string, unknown> = {}) {
  const res = await server.call('POST', `/jobs/${jobId}/embed`, { json: body });
  const accepted = await json(res);
  if (res.status !== 202) throw new Error(`embed answered ${res.status}: ${JSON.stringify(accepted)}`);
  const job = await server.waitFor(jobId, ['indexed', 'finalized'], 120_000);
  return { accepted, job };
}

/** Polls a bot document's job until it is searchable or has failed (its ingest_status); returns the job. */
export async function waitForIngest(
  server: Pick<ServerClient, 'call'>,
  jobId: string,
  timeoutMs = 120_000,
): Promise<Record<string, any>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = await json(await server.call('GET', `/jobs/${jobId}`));
    if (job.ingest_status === 'success' || job.ingest_status === 'failed') return job;
    if (Date.now() > end)
      throw new Error(`job ${jobId} still ${job.status} (ingest ${job.ingest_status}) after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const search = async (server: TestServer, body: Record<string, unknown>) => {
  const res = await server.call('POST', '/search', { json: body });
  return { status: res.status, body: await json(res) };
};

/** A search that must answer: its results, or a failure that names the status and the error the server gave. */
export const searchHits = async <T = { chunk_id: string; score: number; text: string }>(
  server: TestServer,
  body: Record<string, unknown>,
): Promise<T[]> => {
  const res = await search(server, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results as T[];
};

/** Five sections on unrelated topics, one chunk each at the default chunk size. */
export const TOPICS_MD = [
  [
    'Volcanoes',
    'Magma rises through the crust and erupts as lava, ash and volcanic gas. Basaltic eruptions are effusive; andesitic ones explode.',
  ],
  [
    'Baking bread',
    'Knead the dough of flour, water, salt and yeast, let it rise twice, then bake it in a hot oven until the crust is brown.',
  ],
  [
    'Chess openings',
    "The Sicilian Defence answers the king pawn with the c-pawn; the Queen's Gambit offers a pawn for control of the centre.",
  ],
  [
    'Photosynthesis',
    'Chlorophyll in the leaves captures sunlight to turn carbon dioxide and water into glucose, releasing oxygen.',
  ],
  [
    'Tax returns',
    'File the annual income statement before the deadline; deductions for pensions and charity lower the taxable income.',
  ],
]
  .map(([h, p]) => `# ${h}\n\n${p}\n`)
  .join('\n');

/** Eleven unrelated subjects, for documents of many short notes that search has to tell apart. */
export const NOTE_TOPICS = [
  'rivers',
  'volcanoes',
  'chess',
  'bread',
  'comets',
  'violins',
  'glaciers',
  'bees',
  'tax law',
  'sailing',
  'printing',
];
