import { randomBytes } from 'node:crypto';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { embedAndWait, finalizedJob, search, TOPICS_MD } from '../helpers/embed-flow.js';
import { filesUnder, writeMiniLmFolder } from '../helpers/st-folder.js';
import { ensureTestModels } from '../helpers/test-models.js';
import { deskSession } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The Models screen's import of a model the catalog does not know, as a person does it: a name, then the
// real SmolLM2 GGUF, or a sentence-transformers folder (the real MiniLM graph and tokenizer) picked with the
// folder input, each of its files sent under its path inside the folder. Refusals are shown in words beside
// the form, which keeps what was typed, and leave nothing listed.

const shots = screenshotDir('models-import');
let server: TestServer;
let browser: Browser;
let page: Page;
let logs: string[];

const listed = async (id: string) =>
  (await json(await server.call('GET', '/models'))).models.find((m: { id: string }) => m.id === id);
const form = () => page.locator('form.import-own');

/** Types the name and picks what to import; `folder`: the embedding kind and a folder, else a file. */
async function fillForm(name: string, pick: { file: string } | { folder: string; queryPrefix?: string }) {
  await form().locator('input[name=import-name]').fill(name);
  if ('file' in pick) {
    await form().locator('input[name=import-kind][value=gguf]').check();
    await form().locator('input.import-gguf').setInputFiles(pick.file);
  } else {
    await form().locator('input[name=import-kind][value=folder]').check();
    // Playwright hands a webkitdirectory input the folder itself, as the browser's folder picker does.
    await form().locator('input.import-folder').setInputFiles(pick.folder);
    if (pick.queryPrefix !== undefined) await form().locator('input[name=import-query-prefix]').fill(pick.queryPrefix);
  }
}

beforeAll(async () => {
  ensureRendererBuilt();
  await ensureTestModels();
  server = await startServer({ settings: { workers: 1 } });
  ({ browser, page, logs } = await deskSession(server));
  await page.click('nav.sections a[href="#/models"]');
  await page.waitForSelector('section.models[data-loaded=true]');
  await page.click('details.import-own-wrap > summary');
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a GGUF chat model of your own', () => {
  it('is imported under a new name, busy while the server loads it, then listed as your own', async () => {
    const { smollm2 } = await ensureTestModels();
    await expect.poll(() => form().isVisible()).toBe(true);
    await fillForm('my-smollm', { file: smollm2.gguf });
    await shot(page, shots, '1-gguf-chosen');
    await form().locator('button.import-submit').click();
    // The server reads the file and loads it once with llama.cpp: the form says so meanwhile.
    await form().locator('.import-status', { hasText: 'loads my-smollm once' }).waitFor();
    const row = page.locator('.model-list tr[data-model="my-smollm"]');
    await row.waitFor({ timeout: 120_000 });
    expect(await row.locator('.own-badge').textContent()).toBe('your own');
    expect(await row.locator('.model-id').textContent()).toBe('my-smollm');
    expect(await row.locator('.model-state').textContent()).toBe('installed');
    expect(await row.textContent()).toContain('imported from a GGUF of your own');
    expect(await form().getAttribute('aria-busy')).toBeNull();
    expect(await form().locator('input[name=import-name]').inputValue()).toBe('');
    expect(await listed('my-smollm')).toMatchObject({
      task: 'chat',
      custom: true,
      installed: true,
      gguf: { architecture: 'llama' },
    });
    await shot(page, shots, '2-gguf-listed');
  }, 180_000);

  it('a file that is not a GGUF is refused with the server’s words; the form keeps the name; nothing is listed', async () => {
    const notGguf = join(tempDir('lectern-not-gguf-'), 'notes.gguf');
    writeFileSync(notGguf, randomBytes(4096));
    await fillForm('not-a-model', { file: notGguf });
    await form().locator('button.import-submit').click();
    const error = form().locator('.import-error');
    await error.locator('p').first().waitFor();
    expect(await error.textContent()).toMatch(/^Not imported: .*not a GGUF file/);
    expect(await form().locator('input[name=import-name]').inputValue()).toBe('not-a-model');
    expect(await form().locator('input[name=import-name]').isEnabled()).toBe(true);
    expect(await listed('not-a-model')).toBeUndefined();
    expect(await page.locator('.model-list tr[data-model="not-a-model"]').count()).toBe(0);
    await shot(page, shots, '3-gguf-refused');
  });
});

describe('an ONNX embedding model of your own, from its folder', () => {
  it('is imported with each file under its path in the folder and a prefix typed, listed, then embeds and searches', async () => {
    const dir = await writeMiniLmFolder(join(tempDir('lectern-st-'), 'minilm-st'));
    await fillForm('my-minilm', { folder: dir, queryPrefix: 'query: ' });
    await form().locator('button.import-submit').click();
    const row = page.locator('.model-list tr[data-model="my-minilm"]');
    await row.waitFor({ timeout: 120_000 });
    expect(await row.locator('.own-badge').textContent()).toBe('your own');
    expect(await row.locator('td').nth(1).textContent()).toBe('embedding');
    expect(await listed('my-minilm')).toMatchObject({
      task: 'embedding',
      custom: true,
      installed: true,
      dimensions: 384,
      pooling: 'mean',
      query_prefix: 'query: ',
      languages: null,
      onnx: { onnx: 'onnx/model_quantized.onnx', from_request: ['query_prefix'] },
    });
    // Every file arrived where the folder had it (the folder input's top name taken off).
    const copied = filesUnder(join(server.dataDir, 'models', 'my-minilm')).filter((f) => f !== 'lectern-model.json');
    expect(copied).toEqual(filesUnder(dir));
    expect(statSync(join(server.dataDir, 'models', 'my-minilm', '1_Pooling', 'config.json')).isFile()).toBe(true);
    await shot(page, shots, '4-folder-listed');

    // Usable as any embedding model: a job embedded with it is found by meaning.
    const job = await finalizedJob(server, 'topics.md', TOPICS_MD);
    const { accepted, job: done } = await embedAndWait(server, job.job_id, { model: 'my-minilm' });
    expect(accepted.model).toBe('my-minilm');
    expect(done.status).toBe('indexed');
    const found = await search(server, { job_id: job.job_id, query: 'molten rock from a mountain', mode: 'vector' });
    expect(found.status).toBe(200);
    expect(found.body.results[0].section_path).toEqual(['Volcanoes']);
  }, 180_000);

  it('a folder without 1_Pooling/config.json is refused naming the file; the form keeps what was typed', async () => {
    const dir = await writeMiniLmFolder(join(tempDir('lectern-st-'), 'no-pooling'));
    rmSync(join(dir, '1_Pooling'), { recursive: true });
    await fillForm('no-pooling', { folder: dir, queryPrefix: 'query: ' });
    await form().locator('button.import-submit').click();
    const missing = form().locator('.import-error .import-missing');
    await missing.waitFor();
    expect(await missing.textContent()).toBe('Missing from the folder: 1_Pooling/config.json');
    expect(await form().locator('.import-error').textContent()).toContain('lacks what an embedding model needs');
    expect(await form().locator('input[name=import-name]').inputValue()).toBe('no-pooling');
    expect(await form().locator('input[name=import-query-prefix]').inputValue()).toBe('query: ');
    expect(await form().locator('input[name=import-kind][value=folder]').isChecked()).toBe(true);
    expect(await listed('no-pooling')).toBeUndefined();
    await shot(page, shots, '5-folder-refused');
    expect(logs.filter((l) => !/status of 422/.test(l))).toEqual([]);
  });
});
