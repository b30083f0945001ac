import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, repoRoot, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { streamedAnswer } from '../helpers/chat-flow.js';
import { installTestModel, TEST_MODEL, TOPICS_MD, waitForIngest } from '../helpers/embed-flow.js';
import { sseRequest } from '../helpers/sse.js';
import { databaseFor } from '../helpers/test-database.js';
import { ensureTestModels, type TestModels } from '../helpers/test-models.js';

// GGUF chat models the catalog does not know, imported under a name of their own (by the CLI through the
// server that owns the data folder, and by HTTP upload), then answering a bot's questions; and the files
// that are refused, each with its code, leaving the models folder as it was. Real weights only: SmolLM2's
// GGUF (a chat model) under new names, Gemma 3 270M (a base model: no chat template), and files made from them.

const run = promisify(execFile);
const SMOL = 'SmolLM2-135M-Instruct.Q4_1.gguf';
const SMOL_SHA256 = 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53';

let server: TestServer;
let models: TestModels;
let files = '';

const cliOfServer = async (...args: string[]) => {
  const database = await databaseFor(server.dataDir);
  const env = { ...process.env, SERVICE_API_KEY: server.key, ...(database ? { LECTERN_DATABASE_URL: database } : {}) };
  return run(process.execPath, [join(repoRoot, 'bin', 'lectern.js'), ...args, '--data-dir', server.dataDir], {
    cwd: repoRoot,
    env,
  });
};
const importPath = (id: string, path: string) => server.call('POST', `/models/${id}/import`, { json: { path } });
const upload = (id: string, name: string, data: Uint8Array) => {
  const form = new FormData();
  form.append('file', new Blob([data as Uint8Array<ArrayBuffer>]), name);
  return server.call('POST', `/models/${id}/import`, { body: form });
};
const modelsFolder = () => readdirSync(join(server.dataDir, 'models')).sort();
/** Temporary files of the data folder (uploads land there first). */
const tmpFiles = () => readdirSync(join(server.dataDir, 'tmp')).filter((n) => n.startsWith('model-import-'));

beforeAll(async () => {
  models = await ensureTestModels();
  files = tempDir('lectern-gguf-files-');
  writeFileSync(join(files, 'topics.md'), TOPICS_MD);
  const smol = readFileSync(models.smollm2.gguf);
  writeFileSync(join(files, 'random.gguf'), randomBytes(64 * 1024));
  writeFileSync(join(files, 'half.gguf'), smol.subarray(0, Math.floor(smol.length / 2)));
  // Cut inside its metadata (SmolLM2's header, tokenizer and tensor list take its first 1.8 MB).
  writeFileSync(join(files, 'header.gguf'), smol.subarray(0, 1_000_000));
  // Whole, but of an architecture llama.cpp does not know: general.architecture "llama" spelt "zzzzz".
  const arch = Buffer.from(smol);
  const key = arch.indexOf('general.architecture');
  arch.write('zzzzz', key + 'general.architecture'.length + 4 + 8, 'latin1');
  writeFileSync(join(files, 'unknown-arch.gguf'), arch);
  copyFileSync(models.smollm2.gguf, join(files, SMOL));
  copyFileSync(models.gemma3.gguf, join(files, 'gemma-3-270m-q4_k_m.gguf'));
  const dataDir = tempDir();
  await installTestModel(dataDir);
  // The server's own chat model is an imported one: it answers bots created without `llm`.
  server = await startServer({
    dataDir,
    settings: { embedding_model: TEST_MODEL, chat_model: 'my-smol', document_roots: [files] },
  });
}, 300_000);
afterAll(async () => server?.close());

/** What an import of the SmolLM2 GGUF under the name `id` answers: that one file, the model ready to use. */
const importedSmol = (id: string) => ({ model_id: id, imported: [SMOL], missing: [], installed: true, custom: true });

describe('importing a GGUF of your own', () => {
  it('lectern models import NAME FILE.gguf records it as a chat model: listed with what its metadata says, verified by sha256', async () => {
    const done = JSON.parse((await cliOfServer('models', 'import', 'my-smol', join(files, SMOL), '--json')).stdout);
    expect(done).toEqual(importedSmol('my-smol'));
    const listed = (await cliOfServer('models', 'list')).stdout;
    expect(listed).toMatch(/my-smol\s+chat\s+q4_1\s.*installed, imported \(llama\)/);
    const verified = JSON.parse((await cliOfServer('models', 'verify', 'my-smol', '--json')).stdout);
    expect(verified).toEqual({ id: 'my-smol', ok: true, files: [{ path: SMOL, ok: true }] });
    const m = (await json(await server.call('GET', '/models'))).models.find((x: { id: string }) => x.id === 'my-smol');
    expect(m).toMatchObject({
      task: 'chat',
      custom: true,
      installed: true,
      weights: 'q4_1',
      default: true,
      max_tokens: 4096,
      size_bytes: 98_362_432,
      files: [{ path: SMOL, size: 98_362_432, sha256: SMOL_SHA256, url: '' }],
      gguf: {
        architecture: 'llama',
        parameters: 134_515_008,
        quantization: 'q4_1',
        context_length: 8192,
        chat_wrapper: 'ChatML',
      },
    });
  });

  it('POST /models/{new id}/import with the file uploaded does the same; the catalog models stay listed as they were', async () => {
    const res = await upload('smol.upload_2', SMOL, readFileSync(models.smollm2.gguf));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(importedSmol('smol.upload_2'));
    const all = (await json(await server.call('GET', '/models'))).models as {
      id: string;
      custom: boolean;
      gguf: unknown;
    }[];
    expect(all.find((m) => m.id === 'smol.upload_2')).toMatchObject({ custom: true, gguf: { architecture: 'llama' } });
    expect(all.find((m) => m.id === 'smollm2-135m-instruct-q4_1')).toMatchObject({
      custom: false,
      gguf: null,
      installed: false,
    });
    expect(tmpFiles()).toEqual([]);
  });

  it('POST /models/import takes the id in the body: {name, path} as JSON, or a name field before the uploaded file', async () => {
    const res = await server.call('POST', '/models/import', { json: { name: 'by-name', path: join(files, SMOL) } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(importedSmol('by-name'));
    const form = new FormData();
    form.append('name', 'my-smol');
    form.append('file', new Blob([readFileSync(join(files, 'random.gguf'))]), 'random.gguf');
    const taken = await server.call('POST', '/models/import', { body: form });
    expect(taken.status).toBe(409);
    expect((await json(taken)).error.code).toBe('MODEL_EXISTS');
    const unnamed = await server.call('POST', '/models/import', { json: { path: join(files, SMOL) } });
    expect(unnamed.status).toBe(400);
    expect((await json(unnamed)).error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'name' }] });
    expect(tmpFiles()).toEqual([]);
  });

  it('a name taken answers 409 MODEL_EXISTS, a name that cannot be an id 400 MODEL_NAME_INVALID; neither touches the folder', async () => {
    const before = modelsFolder();
    const taken = await importPath('my-smol', join(files, SMOL));
    expect(taken.status).toBe(409);
    expect((await json(taken)).error).toMatchObject({
      code: 'MODEL_EXISTS',
      message: expect.stringContaining('my-smol'),
    });
    for (const bad of ['My-Model', '.hidden', 'a b']) {
      const res = await importPath(encodeURIComponent(bad), join(files, SMOL));
      expect(res.status).toBe(400);
      expect((await json(res)).error.code).toBe('MODEL_NAME_INVALID');
    }
    expect(modelsFolder()).toEqual(before);
  });

  it('refuses what is no usable chat GGUF, each with its code, leaving the models folder and the temporary files as they were', async () => {
    const before = modelsFolder();
    const cases: [string, string, number, string, RegExp][] = [
      ['rnd', 'random.gguf', 422, 'MODEL_FILE_INVALID', /not a GGUF file/],
      ['half', 'half.gguf', 422, 'MODEL_FILE_INVALID', /truncated: its tensor data ends at byte 98362432/],
      [
        'header',
        'header.gguf',
        422,
        'MODEL_FILE_INVALID',
        /truncated: its metadata ends at byte \d+, the file has 1000000/,
      ],
      [
        'zzzzz',
        'unknown-arch.gguf',
        422,
        'MODEL_FILE_INVALID',
        /llama\.cpp could not load it: unknown model architecture: 'zzzzz'/,
      ],
      ['gemma-base', 'gemma-3-270m-q4_k_m.gguf', 422, 'MODEL_NO_CHAT_TEMPLATE', /no chat template/],
    ];
    for (const [id, file, status, code, message] of cases) {
      const byPath = await importPath(id, join(files, file));
      expect(byPath.status, file).toBe(status);
      expect((await json(byPath)).error, file).toMatchObject({ code, message: expect.stringMatching(message) });
      const uploaded = await upload(id, file, readFileSync(join(files, file)));
      expect(uploaded.status, file).toBe(status);
      expect((await json(uploaded)).error, file).toMatchObject({ code, message: expect.stringMatching(message) });
      expect(modelsFolder(), file).toEqual(before);
    }
    expect(tmpFiles()).toEqual([]);
    expect((await json(await server.call('GET', '/models'))).models.map((m: { id: string }) => m.id)).not.toEqual(
      expect.arrayContaining(['rnd']),
    );
  });
});

describe('a bot answering with an imported model', () => {
  let botId = '';
  beforeAll(async () => {
    botId = (
      await json(
        await server.call('POST', '/bots', {
          json: {
            name: 'Tutor',
            prompt_template: 'You are a science tutor.',
            llm: { provider: 'local', model: 'smol.upload_2' },
          },
        }),
      )
    ).bot_id;
    const added = await json(
      await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: join(files, 'topics.md') } }),
    );
    await waitForIngest(server, added.job_id);
  }, 180_000);

  it("chosen as the bot's model, it streams an answer ending with citations of the bot's document", async () => {
    const chatId = (await json(await server.call('POST', `/bots/${botId}/chats`))).chat_id;
    const init = { method: 'POST', headers: { 'x-api-key': server.key, 'content-type': 'application/json' } };
    const { events } = await sseRequest(`${server.url}/bots/${botId}/chats/${chatId}`, {
      ...init,
      body: JSON.stringify({ query: 'What does chlorophyll capture?', stream: true }),
    });
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('sources');
    expect(names.at(-1)).toBe('done');
    expect(names.filter((n) => n === 'token').length).toBeGreaterThan(1);
    const done = events.at(-1)!.data;
    expect(done.answer.length).toBeGreaterThan(0);
    expect(streamedAnswer(events)).toBe(done.answer);
    expect(done.citations[0]).toMatchObject({ source: 'topics.md' });
  });

  it("as the server's chat_model, it answers a bot created without a model", async () => {
    const plain = (
      await json(
        await server.call('POST', '/bots', { json: { name: 'Plain', prompt_template: 'You answer from the notes.' } }),
      )
    ).bot_id;
    const added = await json(
      await server.call('POST', `/bots/${plain}/documents/path`, { json: { path: join(files, 'topics.md') } }),
    );
    await waitForIngest(server, added.job_id);
    const chatId = (await json(await server.call('POST', `/bots/${plain}/chats`))).chat_id;
    const res = await server.call('POST', `/bots/${plain}/chats/${chatId}`, {
      json: { query: 'What does chlorophyll capture?' },
    });
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.not_found).toBe(false);
    expect(m.answer.length).toBeGreaterThan(0);
    expect(m.citations[0]).toMatchObject({ source: 'topics.md' });
  }, 120_000);
});
