import { beforeAll, describe, expect, it } from 'vitest';
import { ingest, listAll } from '../helpers/app.js';
import { makeManyBlocksPdf } from '../helpers/make-pdf.js';
import { signIn } from './helpers/browser.js';
import { useDesk } from './helpers/desk.js';
import { openReview, readBlock } from './helpers/review.js';
import { recordRequests, screenshotDir, shot } from './helpers/screens.js';

// The smaller things a reviewer meets in the desk. The key form fits a 1280x720 window and reads
// as prose; the library says when no job matches a filter, and dragging files over it leaves its table
// readable; an unknown job says so with the way back; "Flagged first" says what it did when nothing is
// flagged; a one-page document never asks for page 2's image.

const shots = screenshotDir('desk-small-defects');
let onePage = '';
// The first test looks at the key form before it signs in.
const desk = useDesk({
  seed: async (server) => {
    onePage = (await ingest(server, 'one-page.pdf', await makeManyBlocksPdf(12))).job_id;
  },
  page: { viewport: { width: 1280, height: 720 } },
  signIn: false,
  timeout: 300_000,
});

describe('smaller defects of the desk', () => {
  it('shows the whole key form in a 1280x720 window, with the command as code, not backticks', async () => {
    await desk.page.goto(`${desk.server.url}/`);
    const form = desk.page.locator('.key-form');
    await form.waitFor();
    const box = (await form.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(720);
    // The button can be clicked where it is drawn: nothing covers it and it is inside the window.
    const button = (await desk.page.locator('.key-form button[type=submit]').boundingBox())!;
    expect(button.y + button.height).toBeLessThanOrEqual(720);
    const hit = await desk.page.evaluate(
      ([x, y]) => document.elementFromPoint(x!, y!)?.closest('button')?.textContent ?? null,
      [button.x + button.width / 2, button.y + button.height / 2],
    );
    expect(hit).toBe('Open the review desk');
    expect(await form.textContent()).not.toContain('`');
    expect(await form.locator('code').textContent()).toBe('lectern serve');
    await shot(desk.page, shots, '1-key-form-1280x720');
    await signIn(desk.page, desk.server);
  });

  it('says no job matches a status filter (not "No jobs yet"), with a way to show them all', async () => {
    await desk.page.waitForSelector(`table.jobs tr[data-job="${onePage}"]`);
    await desk.page.selectOption('.status-filter', 'failed');
    await expect.poll(() => desk.page.textContent('table.jobs tbody')).toContain('No job matches the filter “failed”');
    expect(await desk.page.textContent('table.jobs tbody')).not.toContain('No jobs yet');
    await shot(desk.page, shots, '2-library-no-match');
    await desk.page.click('table.jobs .show-all');
    await desk.page.waitForSelector(`table.jobs tr[data-job="${onePage}"]`);
    expect(await desk.page.inputValue('.status-filter')).toBe('');
  });

  it('lights the drop hint while files are dragged over the library, and leaves the table as it was', async () => {
    const table = desk.page.locator('table.jobs');
    const before = await table.screenshot();
    const drag = (type: 'dragenter' | 'dragleave') =>
      desk.page.evaluate((t) => {
        const data = new DataTransfer();
        data.items.add(new File(['x'], 'notes.txt', { type: 'text/plain' }));
        document
          .querySelector('section.library')!
          .dispatchEvent(new DragEvent(t, { dataTransfer: data, bubbles: true }));
      }, type);
    await drag('dragenter');
    await desk.page.waitForSelector('section.library.dropping');
    await shot(desk.page, shots, '3-dragging');
    const during = await table.screenshot();
    expect(Buffer.compare(during, before)).toBe(0);
    const hint = (await desk.page.locator('.drop-hint').boundingBox())!;
    const rows = (await table.boundingBox())!;
    expect(hint.y + hint.height).toBeLessThanOrEqual(rows.y);
    expect(await desk.page.locator('.drop-hint').evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe('dashed');
    await drag('dragleave');
    await desk.page.waitForSelector('section.library:not(.dropping)');
  });

  it('shows "no such job" with the way back for a job that is not there, in the desk and the audit', async () => {
    for (const screen of ['review', 'audit']) {
      await desk.page.goto(`${desk.server.url}/#/jobs/no-such-job-here/${screen}`);
      const missing = desk.page.locator('.no-such-job');
      await missing.waitFor();
      expect(await missing.textContent()).toContain('No such job');
      expect(await missing.textContent()).toContain('no-such-job-here');
      if (screen === 'review') await shot(desk.page, shots, '4-no-such-job');
    }
    await desk.page.click('.no-such-job a');
    await desk.page.waitForSelector('section.library');
  });

  it('tells the reviewer when "Flagged first" finds nothing flagged', async () => {
    await openReview(desk.page, desk.server, onePage);
    await desk.page.click('.review-toolbar button:has-text("Flagged first")');
    await expect.poll(() => desk.page.textContent('.toasts')).toContain('No block is flagged for low OCR confidence');
    expect(await desk.page.textContent('.toasts')).toContain('12 pending');
    await shot(desk.page, shots, '5-nothing-flagged');
    await desk.page.click('.review-toolbar button:has-text("Reading order")');
  });

  it("asks a one-page document for page 1's image only, never page 2's", async () => {
    const requests = recordRequests(desk.page);
    await desk.page.goto('about:blank');
    await openReview(desk.page, desk.server, onePage);
    await expect.poll(() => desk.page.textContent('.review-toolbar')).toContain('/ 1');
    await expect.poll(() => requests.some((u) => u.includes(`/jobs/${onePage}/pages/1/image`))).toBe(true);
    // The next page is asked for in the same step that shows page 1's image (page-view.ts), so once it is
    // shown any such ask has been made; networkidle alone may have been reached before the image was in.
    await desk.page.waitForSelector('.review .page-image:not([hidden])');
    await desk.page.waitForLoadState('networkidle');
    expect(requests.filter((u) => /\/pages\/(?!1\/)\d+\/image/.test(u))).toEqual([]);
    expect(desk.logs.filter((l) => /pageerror/.test(l))).toEqual([]);
  });
});

describe('the audit trail after finalize', () => {
  let jobId = '';
  let chunks = 0;
  let pageOneChunks: string[] = [];
  let pendingBlocks = 0;

  beforeAll(async () => {
    jobId = (await ingest(desk.server, 'audit.pdf', await makeManyBlocksPdf(75))).job_id;
    const patch = async (id: string, reviewer: string, body: Record<string, unknown>) => {
      const b = await readBlock(desk.server, jobId, id);
      const res = await desk.server.call('PATCH', `/jobs/${jobId}/blocks/${id}`, {
        json: { version: b.version, ...body },
        headers: { 'x-reviewer': reviewer },
      });
      expect(res.status).toBe(200);
    };
    await patch('b2', 'bob', { status: 'rejected' });
    await patch('b40', 'alice', { edited_text: 'The amended words of paragraph forty.' });
    await patch('b41', 'alice', { status: 'approved', reviewer_note: 'checked against the printed copy' });
    pendingBlocks = 75 - 3;
    const fin = await desk.server.call('POST', `/jobs/${jobId}/finalize`, {
      json: { finalize_policy: 'auto_approve_pending' },
    });
    expect(fin.status).toBe(200);
    const all = await listAll(desk.server, `/jobs/${jobId}/chunks`);
    chunks = all.length;
    pageOneChunks = all.filter((c) => c.page_numbers.includes(1)).map((c) => c.chunk_id as string);
    expect(chunks).toBeGreaterThanOrEqual(3);
  }, 300_000);

  async function openAudit(query = ''): Promise<void> {
    await desk.page.goto('about:blank');
    await desk.page.goto(`${desk.server.url}/#/jobs/${jobId}/audit${query}`);
    await desk.page.waitForSelector('.audit[data-loaded=true]');
  }
  /** The entities whose cards the audit shows, in its order. */
  const timelineEntities = () =>
    desk.page.locator('.timeline[data-entity]').evaluateAll((els) => els.map((e) => e.getAttribute('data-entity')));

  it('folds the auto-approvals of finalize into one card per kind, items opened on demand', async () => {
    await openAudit();
    const bulk = desk.page.locator('.timeline.bulk');
    await expect.poll(() => bulk.count()).toBe(2);
    const titles = await bulk.locator('.bulk-title').allTextContents();
    expect(titles).toContain(`${chunks} chunks auto-approved at finalize`);
    expect(titles).toContain(`${pendingBlocks} blocks auto-approved at finalize`);
    // Three reviewed blocks and the job's finalize: one card each; no card per auto-approved item.
    expect(await desk.page.locator('.timeline:not(.bulk)').count()).toBe(4);
    const blocksCard = bulk.filter({ hasText: 'blocks auto-approved' });
    expect(await blocksCard.locator('.bulk-items li').count()).toBe(0);
    await blocksCard.locator('summary').click();
    await expect.poll(() => blocksCard.locator('.bulk-items li').count()).toBe(pendingBlocks);
    expect(await blocksCard.locator('.bulk-items li').first().textContent()).toMatch(/Paragraph \d{4} says/);
    await shot(desk.page, shots, '6-audit-grouped');
  });

  it('filters by action, reviewer, page and words, on the server', async () => {
    await openAudit();
    await desk.page.selectOption('.audit .filter-action', 'rejected');
    await expect.poll(() => timelineEntities()).toEqual(['b2']);
    await desk.page.selectOption('.audit .filter-action', '');
    await desk.page.fill('.audit .filter-reviewer', 'alice');
    await desk.page.press('.audit .filter-reviewer', 'Enter');
    await expect.poll(async () => (await timelineEntities()).sort()).toEqual(['b40', 'b41']);
    await desk.page.fill('.audit .filter-text', 'PRINTED copy');
    await desk.page.press('.audit .filter-text', 'Enter');
    await expect.poll(() => timelineEntities()).toEqual(['b41']);
    await desk.page.fill('.audit .filter-text', 'no such words anywhere');
    await desk.page.press('.audit .filter-text', 'Enter');
    await expect.poll(() => desk.page.textContent('.audit .timelines')).toContain('No change matches these filters.');
    await desk.page.fill('.audit .filter-text', '');
    await desk.page.fill('.audit .filter-reviewer', '');
    // Page 1 holds b1..b30: bob's rejection of b2 and the auto-approval of the page's other blocks.
    await desk.page.fill('.audit .filter-page', '1');
    await desk.page.press('.audit .filter-page', 'Enter');
    await expect
      .poll(() => desk.page.locator('.timeline.bulk .bulk-title').allTextContents())
      .toContain('29 blocks auto-approved at finalize');
    // Chunks spanning page 1 are there too: folded when three or more, else a card each, named by their text.
    const items = await timelineEntities();
    const chunkCards = items.filter((id) => id !== 'b2');
    expect(items).toContain('b2');
    if (pageOneChunks.length < 3) expect(chunkCards.sort()).toEqual([...pageOneChunks].sort());
    else
      expect(await desk.page.locator('.timeline.bulk .bulk-title').allTextContents()).toContain(
        `${pageOneChunks.length} chunks auto-approved at finalize`,
      );
    for (const id of chunkCards)
      expect(await desk.page.textContent(`.timeline[data-entity="${id}"] h2`)).toMatch(/^chunk “Paragraph \d{4} says/);
    await shot(desk.page, shots, '7-audit-page-filter');
    // The same filters over plain HTTP: the total is of the filtered trail.
    const res = await desk.server.call('GET', `/jobs/${jobId}/audit?reviewer=alice&page=2&limit=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('2');
    const bad = await desk.server.call('GET', `/jobs/${jobId}/audit?page=0`);
    expect(bad.status).toBe(400);
  });
});
