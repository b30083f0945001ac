import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { memoryFit, SUGGESTED_BYTES_PER_CORE } from '../../server/models/machine-fit.js';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { CATALOG_WITH_UNRUNNABLE, UNRUNNABLE_ID } from '../helpers/unrunnable-model.js';
import { ensureTestModels } from '../helpers/test-models.js';

// The catalog people choose from, through GET /models: what each model is, what it needs and whether it
// fits this machine; and the 409s of pulls that cannot help (a model imported from a file, one whose
// tokenizer Lectern does not run yet).

const CHAT = [
  'smollm2-360m-instruct-q4_k_m',
  'qwen2.5-0.5b-instruct-q4_k_m',
  'llama-3.2-1b-instruct-q4_k_m',
  'qwen2.5-1.5b-instruct-q4_k_m',
  'smollm2-1.7b-instruct-q4_k_m',
  'gemma-2-2b-it-q4_k_m',
  'qwen2.5-3b-instruct-q4_k_m',
  'llama-3.2-3b-instruct-q4_k_m',
  'phi-3.5-mini-instruct-q4_k_m',
  'mistral-7b-instruct-v0.3-q4_k_m',
  'qwen2.5-7b-instruct-q4_k_m',
  'llama-3.1-8b-instruct-q4_k_m',
];
const EMBEDDING = [
  'bge-small-en-v1.5-int8',
  'bge-base-en-v1.5-int8',
  'e5-small-v2-int8',
  'multilingual-e5-small-int8',
  'gte-small-int8',
  'nomic-embed-text-v1.5-int8',
];
const EARLIER = [
  'all-minilm-l6-v2-int8',
  'all-minilm-l6-v2',
  'all-minilm-l6-v2-int8-pypi',
  'smollm2-135m-instruct-q4_1',
  'stories260k',
];

let server: TestServer;
let roots = '';
beforeAll(async () => {
  roots = tempDir('lectern-catalog-roots-');
  server = await startServer({ settings: { workers: 1, document_roots: [roots] }, catalog: CATALOG_WITH_UNRUNNABLE });
});
afterAll(async () => server?.close());

describe('GET /models: the catalog', () => {
  it('lists chat models from 0.36B to 8B and the embedding models, each with its address, size, licence and use', async () => {
    const body = await json(await server.call('GET', '/models'));
    const byId = new Map(body.models.map((m: { id: string }) => [m.id, m]));
    for (const id of [...CHAT, ...EMBEDDING, ...EARLIER]) expect(byId.has(id), id).toBe(true);
    for (const id of [...CHAT, ...EMBEDDING]) {
      const m = byId.get(id) as Record<string, any>;
      expect(m.licence, id).not.toBe('');
      expect(m.description.length, id).toBeGreaterThan(20);
      expect(m.size_approximate, id).toBe(true);
      expect(m.memory_bytes, id).toBeGreaterThan(m.size_bytes);
      for (const f of m.files) expect(f.url, id).toMatch(/^https:\/\/huggingface\.co\/[^/]+\/[^/]+\/resolve\/main\//);
    }
    const chat = CHAT.map((id) => byId.get(id) as Record<string, any>);
    expect(chat.every((m) => m.weights === 'q4_k_m' && m.files[0].path.endsWith('Q4_K_M.gguf'))).toBe(true);
    // Bigger models need more memory: the 8B most of all.
    expect(Math.max(...chat.map((m) => m.memory_bytes))).toBe(
      (byId.get('llama-3.1-8b-instruct-q4_k_m') as any).memory_bytes,
    );
  });

  it("says whether each model fits this machine's memory, and suggests the largest chat model that fits comfortably and runs at a reading pace on its cores", async () => {
    const body = await json(await server.call('GET', '/models'));
    const memory = { totalBytes: body.memory.total_bytes, freeBytes: body.memory.free_bytes };
    expect(memory.totalBytes).toBeGreaterThan(0);
    expect(memory.freeBytes).toBeGreaterThan(0);
    expect(memory.freeBytes).toBeLessThanOrEqual(memory.totalBytes);
    for (const m of body.models) expect(m.fits, m.id).toBe(memoryFit(m.memory_bytes, memory));
    const candidates = body.models.filter(
      (m: any) =>
        m.task === 'chat' &&
        m.runnable &&
        m.fits === 'comfortably' &&
        m.id !== 'stories260k' &&
        m.size_bytes <= availableParallelism() * SUGGESTED_BYTES_PER_CORE,
    );
    const largest = candidates.sort((a: any, b: any) => b.memory_bytes - a.memory_bytes)[0];
    expect(body.suggested_chat_model).toBe(largest?.id ?? null);
    expect(body.models.filter((m: any) => m.suggested).map((m: any) => m.id)).toEqual(largest ? [largest.id] : []);
  });

  it('lists a model whose tokenizer Lectern cannot run yet as such, and refuses its pull with 409 saying why', async () => {
    const body = await json(await server.call('GET', '/models'));
    const other = body.models.find((m: { id: string }) => m.id === UNRUNNABLE_ID);
    expect(other).toMatchObject({ runnable: false, installed: false, suggested: false });
    expect(other.not_runnable_reason).toMatch(/WordLevel.*not yet runnable here/);
    // Every model of the built-in catalog runs here: multilingual-e5-small's Unigram tokenizer included.
    expect(body.models.filter((m: any) => !m.runnable).map((m: any) => m.id)).toEqual([UNRUNNABLE_ID]);

    const res = await server.call('POST', `/models/${UNRUNNABLE_ID}/pull`);
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { error } = await json(res);
    expect(error.code).toBe('MODEL_NOT_RUNNABLE');
    expect(error.message).toMatch(/WordPiece/);
  });
});

describe('POST /models/{id}/pull of a model imported from a file', () => {
  it('answers 409 MODEL_IMPORTED (it was imported, not pulled); an unknown id stays 404', async () => {
    // A chat GGUF of your own (one with a chat template: the import loads it and reads that).
    const { smollm2 } = await ensureTestModels();
    copyFileSync(smollm2.gguf, join(roots, 'my-smollm.gguf'));
    const imported = await server.call('POST', '/models/my-smollm/import', {
      json: { path: join(roots, 'my-smollm.gguf') },
    });
    expect(imported.status).toBe(200);

    const res = await server.call('POST', '/models/my-smollm/pull');
    expect(res.status).toBe(409);
    const { error } = await json(res);
    expect(error.code).toBe('MODEL_IMPORTED');
    expect(error.message).toContain('my-smollm was imported from files of your own, not pulled');

    const unknown = await server.call('POST', '/models/no-such-model/pull');
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe('MODEL_NOT_FOUND');
  });
});
