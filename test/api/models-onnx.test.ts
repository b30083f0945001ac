import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosineSimilarity, readableScore } from '../../server/core/search/similarity.js';
import { json, repoRoot, tempDir, type TestServer } from '../helpers/app.js';
import {
  embedAndWait,
  finalizedJob,
  miniLmEmbedder,
  search,
  TEST_MODEL,
  TOPICS_MD,
  startServerWithModel,
} from '../helpers/embed-flow.js';
import { filesUnder, writeMiniLmFolder } from '../helpers/st-folder.js';
import { databaseFor } from '../helpers/test-database.js';
import { ensureTestModels, type TestModels } from '../helpers/test-models.js';

// ONNX sentence-embedding models the catalog does not know, imported from a sentence-transformers folder
// (by path, and uploaded file by file) under names of their own, then embedding a job and searching it; and
// the folders that are refused, each with its code, leaving the models folder and the temporary files as
// they were. Real weights only: MiniLM's int8 graph and tokenizer laid out as sentence-transformers does.

let server: TestServer;
let models: TestModels;
let files = '';
let jobId = '';

const cliOfServer = async (...args: string[]) => {
  const database = await databaseFor(server.dataDir);
  const env = { ...process.env, SERVICE_API_KEY: server.key, ...(database ? { LECTERN_DATABASE_URL: database } : {}) };
  return promisify(execFile)(
    process.execPath,
    [join(repoRoot, 'bin', 'lectern.js'), ...args, '--data-dir', server.dataDir],
    { cwd: repoRoot, env },
  );
};
const importPath = (id: string, path: string, extra: Record<string, unknown> = {}) =>
  server.call('POST', `/models/${id}/import`, { json: { path, ...extra } });
/** The folder's files as a multipart upload, each named by its path inside the folder. */
function uploadFolder(url: string, dir: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const rel of filesUnder(dir)) form.append('file', new Blob([readFileSync(join(dir, rel))]), rel);
  return server.call('POST', url, { body: form });
}
const modelsFolder = () => readdirSync(join(server.dataDir, 'models')).sort();
const tmpFiles = () => readdirSync(join(server.dataDir, 'tmp')).filter((n) => n.startsWith('model-import-'));
const listed = async (id: string) =>
  (await json(await server.call('GET', '/models'))).models.find((m: { id: string }) => m.id === id);

/** The vector search of `query` over the job in `collection`: its hits, best first. */
async function vectorSearch(collection: string, query: string) {
  const res = await search(server, { collection_name: collection, query, mode: 'vector', top_k: 5 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results as { section_path: string[]; score: number; text: string }[];
}

beforeAll(async () => {
  models = await ensureTestModels();
  files = tempDir('lectern-onnx-files-');
  await writeMiniLmFolder(join(files, 'minilm-st'));
  await writeMiniLmFolder(join(files, 'minilm-root'), { onnxAt: 'model.onnx' });
  // As a hub folder has it: hidden files are no part of a model, and an upload leaves them out.
  writeFileSync(join(files, 'minilm-root', '.gitattributes'), '*.onnx filter=lfs diff=lfs merge=lfs -text\n');
  await writeMiniLmFolder(join(files, 'e5-style'), { prompts: { query: 'query: ', passage: 'passage: ' } });
  await writeMiniLmFolder(join(files, 'max-pooling'), { pooling: 'max' });
  const noTokenizer = await writeMiniLmFolder(join(files, 'no-tokenizer'));
  rmSync(join(noTokenizer, 'tokenizer.json'));
  rmSync(join(noTokenizer, '1_Pooling'), { recursive: true });
  const random = await writeMiniLmFolder(join(files, 'random-onnx'));
  writeFileSync(
    join(random, 'onnx/model_quantized.onnx'),
    Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251),
  );
  const half = await writeMiniLmFolder(join(files, 'half-onnx'));
  const graph = readFileSync(models.minilm.onnx);
  writeFileSync(join(half, 'onnx/model_quantized.onnx'), graph.subarray(0, Math.floor(graph.length / 2)));
  // MiniLM's vocabulary as a sentencepiece Unigram tokenizer.json, id for id (made by the Python `tokenizers`):
  // the kind XLM-R and multilingual-e5 have, whose ids index MiniLM's embedding table.
  const unigramJson = join(files, 'minilm-unigram-tokenizer.json');
  await promisify(execFile)(join(repoRoot, '.venv', 'bin', 'python'), [
    '-B',
    join(repoRoot, 'test', 'helpers', 'minilm_unigram.py'),
    models.minilm.tokenizer,
    unigramJson,
  ]);
  await writeMiniLmFolder(join(files, 'minilm-unigram'), { tokenizer: unigramJson });
  // A pre-tokenizer Lectern does not run (UnicodeScripts) in a real tokenizer.json.
  const scripts = await writeMiniLmFolder(join(files, 'scripts-tokenizer'));
  const tok = JSON.parse(readFileSync(join(scripts, 'tokenizer.json'), 'utf8'));
  writeFileSync(join(scripts, 'tokenizer.json'), JSON.stringify({ ...tok, pre_tokenizer: { type: 'UnicodeScripts' } }));
  // MiniLM's tokenizer with one more token than the graph's embedding table has rows (30,522).
  const wide = await writeMiniLmFolder(join(files, 'wide-vocabulary'));
  const wideTok = JSON.parse(readFileSync(join(wide, 'tokenizer.json'), 'utf8'));
  wideTok.added_tokens.push({ id: 30522, content: '<extra>', special: true, normalized: false });
  writeFileSync(join(wide, 'tokenizer.json'), JSON.stringify(wideTok));
  // modules.json pointing out of the folder: what lies there is not read.
  const outward = await writeMiniLmFolder(join(files, 'escape'));
  rmSync(join(outward, '1_Pooling'), { recursive: true });
  const mods = JSON.parse(readFileSync(join(outward, 'modules.json'), 'utf8'));
  mods[1].path = '../minilm-st/1_Pooling';
  writeFileSync(join(outward, 'modules.json'), JSON.stringify(mods));
  mkdirSync(join(files, 'graph-only'));
  copyFileSync(models.minilm.onnx, join(files, 'graph-only', 'model.onnx'));
  writeFileSync(join(files, 'topics.md'), TOPICS_MD);

  server = await startServerWithModel({ document_roots: [files] });
  jobId = (await finalizedJob(server, 'topics.md', TOPICS_MD)).job_id;
}, 300_000);
afterAll(async () => server?.close());

describe('importing an ONNX embedding model of your own', () => {
  it('a sentence-transformers folder by path: listed with what its files say', async () => {
    const res = await importPath('my-minilm', join(files, 'minilm-st'));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ model_id: 'my-minilm', missing: [], installed: true, custom: true });
    expect(body.imported.sort()).toEqual(
      [
        '1_Pooling/config.json',
        'config.json',
        'modules.json',
        'onnx/model_quantized.onnx',
        'sentence_bert_config.json',
        'special_tokens_map.json',
        'tokenizer.json',
        'tokenizer_config.json',
      ].sort(),
    );
    expect(await listed('my-minilm')).toMatchObject({
      task: 'embedding',
      custom: true,
      installed: true,
      weights: 'int8',
      dimensions: 384,
      pooling: 'mean',
      normalize: true,
      max_tokens: 256,
      query_prefix: '',
      passage_prefix: '',
      default: false,
      gguf: null,
      onnx: { onnx: 'onnx/model_quantized.onnx', from_request: [] },
    });
    expect(await listed(TEST_MODEL)).toMatchObject({
      custom: false,
      onnx: null,
      normalize: true,
      pooling: 'mean',
      query_prefix: '',
    });
    const verified = await json(await server.call('GET', '/models'));
    expect(verified.models.filter((m: { custom: boolean }) => m.custom).map((m: { id: string }) => m.id)).toEqual([
      'my-minilm',
    ]);
  });

  it('embeds a job and finds each topic by meaning, with the same scores as the catalog model of the same weights', async () => {
    const queries = [
      ['how do plants make sugar from light', 'Photosynthesis'],
      ['molten rock coming out of a mountain', 'Volcanoes'],
      ['paying less to the government each year', 'Tax returns'],
    ] as const;
    const mine = await embedAndWait(server, jobId, { model: 'my-minilm', collection_name: 'mine' });
    expect(mine.accepted).toMatchObject({ provider: 'local', model: 'my-minilm', dimensions: 384 });
    expect(mine.job.status).toBe('indexed');
    const scores: number[][] = [];
    for (const [query, section] of queries) {
      const hits = await vectorSearch('mine', query);
      expect(hits[0]?.section_path, query).toEqual([section]);
      scores.push(hits.map((h) => h.score));
    }
    // The same job in a collection of the catalog model with the same weights (a job is in one collection at
    // a time): the worker runs an imported model as its files say, which for MiniLM's is what the catalog says.
    const catalog = await embedAndWait(server, jobId, { model: TEST_MODEL, collection_name: 'catalog' });
    expect(catalog.job.status).toBe('indexed');
    for (const [i, [query]] of queries.entries())
      expect(
        (await vectorSearch('catalog', query)).map((h) => h.score),
        query,
      ).toEqual(scores[i]);
  });

  it('the prompts of config_sentence_transformers.json go before queries and passages (e5\'s "query: " and "passage: ")', async () => {
    expect((await importPath('e5-style', join(files, 'e5-style'))).status).toBe(200);
    expect(await listed('e5-style')).toMatchObject({
      query_prefix: 'query: ',
      passage_prefix: 'passage: ',
      onnx: { from_request: [] },
    });
    await embedAndWait(server, jobId, { model: 'e5-style', collection_name: 'e5' });
    const query = 'how do plants make sugar from light';
    const hits = await vectorSearch('e5', query);
    expect(hits[0]?.section_path).toEqual(['Photosynthesis']);
    const embedder = await miniLmEmbedder();
    try {
      const texts = hits.map((h) => h.text);
      const [q, ...passages] = await embedder.embed([`query: ${query}`, ...texts.map((t) => `passage: ${t}`)]);
      const [bareQ, ...bare] = await embedder.embed([query, ...texts]);
      hits.forEach((h, i) => expect(h.score).toBeCloseTo(readableScore(cosineSimilarity(q!, passages[i]!)), 2));
      // Without the prefixes the same pairs score otherwise: the prefixes are what made these scores.
      const apart = Math.max(
        ...hits.map((h, i) => Math.abs(readableScore(cosineSimilarity(bareQ!, bare[i]!)) - h.score)),
      );
      expect(apart).toBeGreaterThan(0.02);
    } finally {
      await embedder.close();
    }
  });

  it('the request overrides the files: CLS pooling and a bge-style query instruction, uploaded file by file', async () => {
    const instruction = 'Represent this sentence for searching relevant passages: ';
    const res = await uploadFolder('/models/import', join(files, 'minilm-root'), {
      name: 'minilm-cls',
      pooling: 'cls',
      query_prefix: instruction,
      max_tokens: '128',
    });
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
    const imported = (await json(res)).imported as string[];
    expect(imported).toContain('model.onnx');
    expect(imported.filter((f) => f.startsWith('.'))).toEqual([]);
    expect(await listed('minilm-cls')).toMatchObject({
      pooling: 'cls',
      max_tokens: 128,
      query_prefix: instruction,
      passage_prefix: '',
      onnx: { onnx: 'model.onnx', from_request: ['pooling', 'max_tokens', 'query_prefix'] },
    });
    expect(tmpFiles()).toEqual([]);
    await embedAndWait(server, jobId, { model: 'minilm-cls', collection_name: 'cls' });
    const query = 'how do plants make sugar from light';
    const hits = await vectorSearch('cls', query);
    const embedder = await miniLmEmbedder({ pooling: 'cls', maxTokens: 128 });
    try {
      const [q, ...texts] = await embedder.embed([instruction + query, ...hits.map((h) => h.text)]);
      hits.forEach((h, i) => expect(h.score).toBeCloseTo(readableScore(cosineSimilarity(q!, texts[i]!)), 2));
    } finally {
      await embedder.close();
    }
  });
});

describe('an ONNX model with a sentencepiece Unigram tokenizer', () => {
  it('imports (its tokenizer runs: no MODEL_UNSUPPORTED) and finds each topic by meaning', async () => {
    const res = await importPath('minilm-unigram', join(files, 'minilm-unigram'));
    expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
    expect(await listed('minilm-unigram')).toMatchObject({ custom: true, dimensions: 384, pooling: 'mean' });
    const embedded = await embedAndWait(server, jobId, { model: 'minilm-unigram', collection_name: 'unigram' });
    expect(embedded.job.status).toBe('indexed');
    for (const [query, section] of [
      ['how do plants make sugar from light', 'Photosynthesis'],
      ['molten rock coming out of a mountain', 'Volcanoes'],
      ['paying less to the government each year', 'Tax returns'],
    ] as const) {
      const hits = await vectorSearch('unigram', query);
      expect(hits[0]?.section_path, query).toEqual([section]);
    }
  });
});

describe('lectern models import through the running server', () => {
  it("sends the folder's path and the flags; vectors left unnormalised still find the right chunk (search is by cosine)", async () => {
    const { stdout } = await cliOfServer(
      'models',
      'import',
      'raw-minilm',
      join(files, 'minilm-st'),
      '--no-normalize',
      '--passage-prefix',
      'passage: ',
    );
    expect(stdout).toMatch(/as the embedding model raw-minilm/);
    expect(await listed('raw-minilm')).toMatchObject({
      normalize: false,
      pooling: 'mean',
      passage_prefix: 'passage: ',
      onnx: { from_request: ['normalize', 'passage_prefix'] },
    });
    await embedAndWait(server, jobId, { model: 'raw-minilm', collection_name: 'raw' });
    expect((await vectorSearch('raw', 'how do plants make sugar from light'))[0]?.section_path).toEqual([
      'Photosynthesis',
    ]);
  });
});

describe('folders that are refused', () => {
  it('each answers its code and why, by path and uploaded, leaving the models folder and the temporary files as they were', async () => {
    const before = modelsFolder();
    const cases: [string, string, Record<string, unknown>, number, string, RegExp][] = [
      [
        'no-tok',
        'no-tokenizer',
        {},
        422,
        'MODEL_FILES_MISSING',
        /lacks what an embedding model needs: tokenizer\.json, 1_Pooling\/config\.json/,
      ],
      [
        'rnd',
        'random-onnx',
        {},
        422,
        'MODEL_FILE_INVALID',
        /onnx\/model_quantized\.onnx: not an ONNX model|onnxruntime could not run it/,
      ],
      [
        'half',
        'half-onnx',
        {},
        422,
        'MODEL_FILE_INVALID',
        /onnx\/model_quantized\.onnx: (not an ONNX model|onnxruntime could not run it)/,
      ],
      [
        'wide',
        'minilm-st',
        { dimensions: 768 },
        422,
        'MODEL_FILE_INVALID',
        /gives 384-dimensional vectors; the request states 768/,
      ],
      ['escape', 'escape', {}, 422, 'MODEL_FILES_MISSING', /needs: \.\.\/minilm-st\/1_Pooling\/config\.json$/],
      [
        'wide-vocab',
        'wide-vocabulary',
        {},
        422,
        'MODEL_FILE_INVALID',
        /tokenizer\.json gives ids up to 30522, which the model's embedding table does not hold/,
      ],
      [
        'maxpool',
        'max-pooling',
        {},
        422,
        'MODEL_UNSUPPORTED',
        /pooling_mode_max_tokens: Lectern pools by one of mean, CLS or last token/,
      ],
      [
        'scripts',
        'scripts-tokenizer',
        {},
        422,
        'MODEL_UNSUPPORTED',
        /tokenizer\.json: pre-tokenizer UnicodeScripts is not supported \(Lectern runs WordPiece, Unigram and BPE/,
      ],
    ];
    for (const [id, folder, extra, status, code, message] of cases) {
      const byPath = await importPath(id, join(files, folder), extra);
      expect(byPath.status, folder).toBe(status);
      expect((await json(byPath)).error, folder).toMatchObject({ code, message: expect.stringMatching(message) });
      const fields = Object.fromEntries(Object.entries({ name: id, ...extra }).map(([k, v]) => [k, String(v)]));
      const uploaded = await uploadFolder('/models/import', join(files, folder), fields);
      expect(uploaded.status, folder).toBe(status);
      expect((await json(uploaded)).error, folder).toMatchObject({ code, message: expect.stringMatching(message) });
      expect(modelsFolder(), folder).toEqual(before);
      expect(tmpFiles(), folder).toEqual([]);
    }
    const missing = await json(await importPath('no-tok', join(files, 'no-tokenizer')));
    expect(missing.error.details).toMatchObject({ missing: ['tokenizer.json', '1_Pooling/config.json'] });
  });

  it('a graph alone is no embedding model; a bad field, a taken name and a catalog model with settings are refused too', async () => {
    const before = modelsFolder();
    const alone = await importPath('alone', join(files, 'graph-only', 'model.onnx'));
    expect(alone.status).toBe(422);
    expect((await json(alone)).error).toMatchObject({
      code: 'MODEL_FILES_MISSING',
      details: { missing: ['tokenizer.json', 'modules.json', '1_Pooling/config.json'] },
    });
    const badPooling = await importPath('bad', join(files, 'minilm-st'), { pooling: 'max' });
    expect(badPooling.status).toBe(400);
    expect((await json(badPooling)).error.code).toBe('VALIDATION_FAILED');
    const badForm = await uploadFolder('/models/import', join(files, 'minilm-st'), { name: 'bad', normalize: 'maybe' });
    expect(badForm.status).toBe(400);
    expect((await json(badForm)).error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'normalize' }] });
    const taken = await importPath('my-minilm', join(files, 'minilm-st'));
    expect(taken.status).toBe(409);
    expect((await json(taken)).error.code).toBe('MODEL_EXISTS');
    const catalog = await importPath(TEST_MODEL, join(files, 'minilm-st'), { pooling: 'cls' });
    expect(catalog.status).toBe(400);
    expect((await json(catalog)).error).toMatchObject({
      code: 'MODEL_IMPORT_FAILED',
      message: expect.stringContaining('is a model of the catalog'),
    });
    expect(modelsFolder()).toEqual(before);
    expect(tmpFiles()).toEqual([]);
  });
});
