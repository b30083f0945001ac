import { describe, expect, it } from 'vitest';
import { ingest, json, listPage } from '../helpers/app.js';
import { makeManyBlocksPdf, MANY_BLOCKS_PER_PAGE } from '../helpers/make-pdf.js';
import { useDesk } from './helpers/desk.js';
import { selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// Finalizing from the review desk, in Debian's chromium against the real server on generated PDFs:
// finalize asks for its policy with the one that decides nothing for the reviewer chosen, says what each
// policy would do to how many items, confirms before closing review, and words a refusal with its counts;
// a finalized job's desk opens no editor and says it is read-only instead of failing on save.

const shots = screenshotDir('review-finalize');
let jobId = '';
let doneId = '';
const desk = useDesk({
  seed: async (server) => {
    jobId = (await ingest(server, 'to-finalize.pdf', await makeManyBlocksPdf(2 * MANY_BLOCKS_PER_PAGE))).job_id;
    // Page 1 reviewed, page 2 still pending.
    const reviewed = await server.call('POST', `/jobs/${jobId}/blocks/review`, {
      json: { status: 'approved', filter: { page: 1 } },
    });
    expect(reviewed.status).toBe(200);
    doneId = (await ingest(server, 'finalized.pdf', await makeManyBlocksPdf(MANY_BLOCKS_PER_PAGE))).job_id;
    expect(
      (await server.call('POST', `/jobs/${doneId}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } }))
        .status,
    ).toBe(200);
  },
});

const job = async (id = jobId) => json(await desk.server.call('GET', `/jobs/${id}`));
const toasts = () => desk.page.locator('.toasts .toast').allTextContents();

async function openFinalize(): Promise<void> {
  await desk.page.evaluate((id) => (location.hash = `#/jobs/${id}/finalize`), jobId);
  await desk.page.waitForSelector('.finalize[data-status=ready_for_review] input[name=policy]');
}

describe('finalize', () => {
  it('asks for a policy, the one that settles nothing chosen, and says what each would do', async () => {
    await openFinalize();
    expect(await desk.page.inputValue('input[name=policy]:checked')).toBe('require_all_approved');
    const { review } = await job();
    const pending = review.blocks.pending as number;
    expect(pending).toBe(MANY_BLOCKS_PER_PAGE);
    const effect = (policy: string) => desk.page.textContent(`.policy-option[data-policy=${policy}] .policy-effect`);
    expect(await effect('auto_approve_pending')).toContain(`${pending} pending blocks`);
    expect(await effect('auto_approve_pending')).toMatch(/approve/i);
    expect(await effect('auto_reject_pending')).toContain(`${pending} pending blocks`);
    expect(await effect('auto_reject_pending')).toMatch(/reject/i);
    expect(await effect('require_all_approved')).toMatch(/refuse/i);
    await shot(desk.page, shots, '1-policies');
  });

  it('words a refusal with its counts, never as raw JSON', async () => {
    await desk.page.click('button.finalize-button');
    await desk.page.waitForSelector('dialog[open]');
    await desk.page.click('dialog[open] button[data-value=true]');
    const error = desk.page.locator('.finalize .finalize-error');
    await expect.poll(() => error.textContent()).toContain(`${MANY_BLOCKS_PER_PAGE} blocks`);
    const text = (await error.textContent()) ?? '';
    expect(text).toMatch(/pending/);
    expect(text).not.toMatch(/[{}"]|pending_blocks/);
    for (const t of await toasts()) expect(t).not.toMatch(/[{}]|pending_blocks/);
    expect((await job()).status).toBe('ready_for_review');
    await shot(desk.page, shots, '2-refused');
  });

  it('confirms before approving everything pending: Enter and Escape change nothing', async () => {
    await desk.page.check('input[name=policy][value=auto_approve_pending]');
    await desk.page.click('button.finalize-button');
    const dialog = desk.page.locator('dialog[open]');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(`${MANY_BLOCKS_PER_PAGE} pending blocks`);
    await shot(desk.page, shots, '3-confirm');
    await desk.page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect((await job()).status).toBe('ready_for_review');
    await desk.page.click('button.finalize-button');
    await dialog.waitFor();
    await desk.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await job()).toMatchObject({
      status: 'ready_for_review',
      review: { blocks: { pending: MANY_BLOCKS_PER_PAGE } },
    });
    await desk.page.click('button.finalize-button');
    await desk.page.click('dialog[open] button[data-value=true]');
    await desk.page.waitForSelector('.finalize[data-status=finalized]');
    expect(await job()).toMatchObject({
      status: 'finalized',
      finalize_policy: 'auto_approve_pending',
      review: { blocks: { pending: 0 } },
    });
  });
});

describe('a finalized job in the desk', () => {
  it('opens no editor and says every change key is refused because the job is read-only', async () => {
    await desk.page.evaluate((id) => (location.hash = `#/jobs/${id}/review`), doneId);
    await desk.page.waitForSelector('.review[data-loaded=true]');
    await desk.page.waitForSelector('.review-toolbar .badge.warn:not([hidden])');
    const before = JSON.stringify((await listPage(desk.server, `/jobs/${doneId}/blocks?limit=500`)).items);
    const sent = desk.requests.length;
    for (const key of ['e', 'Enter', 'n', 'a', 'r', 'x', 'u', 'Shift+A']) {
      await desk.page.keyboard.press(key);
      await expect.poll(async () => (await toasts()).some((t) => /read-only/i.test(t))).toBe(true);
      expect(await desk.page.locator('.block-row.editing').count()).toBe(0);
      await desk.page.evaluate(() => document.querySelectorAll('.toasts .toast').forEach((t) => t.remove()));
    }
    expect(await desk.page.locator('.review-toolbar .approve-all').isDisabled()).toBe(true);
    expect(await desk.page.locator('.review-toolbar .approve-page').isDisabled()).toBe(true);
    await desk.page.keyboard.press('j');
    await expect.poll(() => selectedBlock(desk.page)).toBe('b2');
    await shot(desk.page, shots, '4-read-only-desk');
    expect(desk.requests.slice(sent).filter((u) => /\/blocks\/(b\d+|review|undo)$/.test(u))).toEqual([]);
    expect(JSON.stringify((await listPage(desk.server, `/jobs/${doneId}/blocks?limit=500`)).items)).toBe(before);
    expect(desk.logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
  });
});
