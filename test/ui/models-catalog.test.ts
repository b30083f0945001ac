import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/app.js';
import { CATALOG_WITH_UNRUNNABLE, UNRUNNABLE_ID } from '../helpers/unrunnable-model.js';
import { deskSession } from './helpers/browser.js';
import { ensureRendererBuilt } from './helpers/renderer-build.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The Models screen as people choose from it, in chromium: what each model needs against this machine's
// memory, the chat model suggested for it, and a model this server cannot run yet, offered for nothing.

const shots = screenshotDir('models-catalog');
let server: TestServer;
let browser: Browser;
let page: Page;
let logs: string[];

beforeAll(async () => {
  ensureRendererBuilt();
  server = await startServer({ settings: { workers: 1 }, catalog: CATALOG_WITH_UNRUNNABLE });
  ({ browser, page, logs } = await deskSession(server));
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Listed {
  suggested_chat_model: string | null;
  models: { id: string; name: string; fits: string; suggested: boolean; runnable: boolean }[];
}

describe('the Models screen', () => {
  it('marks what fits this machine and suggests a chat model, as the listing it was shown says', async () => {
    // The very answer the screen drew from: free memory moves between two requests.
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/models' && r.status() === 200);
    await page.goto(`${server.url}/#/models`);
    const listed = (await (await answered).json()) as Listed;
    await page.locator('section.models[data-loaded="true"]').waitFor();

    for (const m of listed.models) {
      const row = page.locator(`.model-list tr[data-model="${m.id}"]`);
      expect(await row.getAttribute('data-fits'), m.id).toBe(m.fits);
      const badge = await row.locator('.model-memory .badge').textContent();
      expect(badge, m.id).toBe({ comfortably: 'fits', tight: 'tight', no: 'too large' }[m.fits]);
    }
    const marked = await page
      .locator('.model-list tr.suggested')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-model')));
    expect(marked).toEqual(listed.suggested_chat_model ? [listed.suggested_chat_model] : []);
    const suggested = listed.models.find((m) => m.id === listed.suggested_chat_model);
    const line = await page.locator('.machine-fit').textContent();
    expect(line).toMatch(/^This machine has [\d.]+ [KMG]iB free of [\d.]+ [KMG]iB\. /);
    if (suggested) {
      expect(line).toContain(`Suggested chat model: ${suggested.name}.`);
      const row = page.locator(`.model-list tr[data-model="${suggested.id}"]`);
      expect(await row.locator('.suggested-badge').textContent()).toBe('suggested for this machine');
    }
    await shot(page, shots, '1-models-fit');
  });

  it('shows a model whose tokenizer is not run here as not yet runnable, with no Download', async () => {
    const row = page.locator(`.model-list tr[data-model="${UNRUNNABLE_ID}"]`);
    expect(await row.locator('.model-state').textContent()).toBe('not yet runnable here');
    expect(await row.locator('.not-runnable').textContent()).toMatch(/WordLevel/);
    expect(await row.locator('button.pull-start').count()).toBe(0);
    // A runnable one beside it still offers its download.
    expect(await page.locator('.model-list tr[data-model="bge-small-en-v1.5-int8"] button.pull-start').count()).toBe(1);
    expect(
      await page.locator('.model-list tr[data-model="multilingual-e5-small-int8"] button.pull-start').count(),
    ).toBe(1);
    expect(logs).toEqual([]);
  });
});
