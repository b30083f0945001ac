import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixturesDir, ingest, listAll } from '../helpers/app.js';
import { makeManyBlocksPdf, manyBlocksSentence } from '../helpers/make-pdf.js';
import { useDesk } from './helpers/desk.js';
import { openReview, type ReviewBlock, readBlock, selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The review list's tools, as reviewers know them from other review tools, in Debian's chromium against the
// real server: a review progress bar with session stats, next pending / flagged jumps (round the end, and
// saying when there is none), search within the document, filters, notes shown in the rows, and split, merge
// and reading order by dragging, each undone, seen again after a reload and carried into the export.

const BLOCKS = 60;
const shots = screenshotDir('review-list-tools');
let jobId = '';
const desk = useDesk({
  seed: async (server) => {
    jobId = (await ingest(server, 'many-blocks.pdf', await makeManyBlocksPdf(BLOCKS))).job_id;
  },
});

type Block = ReviewBlock & { reviewer_note: string | null; flagged?: boolean };
const block = (id: string) => readBlock<Block>(desk.server, jobId, id);
const ids = async (job = jobId) => (await listAll(desk.server, `/jobs/${job}/blocks`)).map((b) => b.block_id as string);
const effective = (b: Block) => b.edited_text ?? b.text;
const selected = () => selectedBlock(desk.page);
const row = (id: string) => desk.page.locator(`.vlist .block-row[data-block="${id}"]`);
const toasts = () => desk.page.textContent('.toasts');
const progressText = () => desk.page.textContent('.review-progress .progress-text');
const listRows = () =>
  desk.page
    .locator('.vlist .block-row[data-block]')
    .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.block!));
const sentence = manyBlocksSentence;

async function openDesk(job = jobId): Promise<void> {
  await openReview(desk.page, desk.server, job);
}

/** Selects paragraph n by finding its number, as a reviewer would, then gives the keys back to the list. */
async function selectBlock(n: number): Promise<void> {
  await desk.page.fill('.doc-search', `Paragraph ${String(n).padStart(4, '0')} `);
  await desk.page.press('.doc-search', 'Enter');
  await expect.poll(() => selected()).toBe(`b${n}`);
  await desk.page.fill('.doc-search', '');
  await desk.page.locator('.vlist').focus();
}

async function waitForToast(text: string | RegExp): Promise<void> {
  await expect.poll(() => toasts()).toMatch(text);
}

beforeAll(async () => {
  await openDesk();
});

describe('progress and jumps', () => {
  it("shows reviewed / total by status and this session's reviews, moving with every action and undo", async () => {
    await expect.poll(() => progressText()).toMatch(/^0 \/ 60 reviewed \(0%\).*this session: 0 reviewed/);
    await expect.poll(() => selected()).toBe('b1');
    await desk.page.keyboard.press('a');
    await expect.poll(() => selected()).toBe('b2');
    await desk.page.keyboard.press('a');
    await expect
      .poll(() => progressText())
      .toMatch(/^2 \/ 60 reviewed \(3%\) · 2 approved .*this session: 2 reviewed · \d+\.\d\/min/);
    expect(await desk.page.getAttribute('.review-progress .seg.status-approved', 'data-count')).toBe('2');
    await desk.page.keyboard.press('u');
    await expect.poll(() => progressText()).toMatch(/^1 \/ 60 reviewed.*this session: 1 reviewed/);
    await expect.poll(async () => (await block('b2')).status).toBe('pending');
    await shot(desk.page, shots, '1-progress');
  });

  it('jumps to the next and previous pending block, round the end, and says when there is none', async () => {
    await desk.page.locator('.vlist').focus();
    await selectBlock(1);
    await desk.page.keyboard.press('p');
    await expect.poll(() => selected()).toBe('b2');
    await desk.page.keyboard.press('Shift+P');
    // b1 is approved: the previous pending block is the last one, round the start.
    await expect.poll(() => selected()).toBe(`b${BLOCKS}`);
    await waitForToast('Went round to the last pending block');
    await desk.page.click('.list-tools button.jump-pending');
    await expect.poll(() => selected()).toBe('b2');
    // Nothing is flagged in a PDF with a text layer: said, and the selection stays.
    await desk.page.keyboard.press('f');
    await waitForToast('No other flagged block still pending');
    expect(await selected()).toBe('b2');
    // Under a filter that keeps only approved blocks there is no pending one to go to.
    await desk.page.selectOption('.list-filters .filter-status', 'approved');
    await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe(`1 of ${BLOCKS} shown`);
    await expect.poll(() => selected()).toBe('b1');
    await desk.page.locator('.vlist').focus();
    await desk.page.keyboard.press('p');
    await waitForToast('No other pending block in the filtered list');
    await desk.page.click('.list-filters .filter-clear');
    await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe('');
    await shot(desk.page, shots, '2-jumps');
  });
});

describe('search and filters', () => {
  it('finds text in the document, highlights it in the list, and steps through the matches', async () => {
    await desk.page.locator('.vlist').focus();
    await desk.page.keyboard.press('/');
    await expect.poll(() => desk.page.evaluate(() => document.activeElement?.className)).toBe('doc-search');
    await desk.page.keyboard.type('Paragraph 0042');
    await desk.page.keyboard.press('Enter');
    await expect.poll(() => selected()).toBe('b42');
    await expect.poll(() => row('b42').locator('mark').textContent()).toBe('Paragraph 0042');
    expect(await desk.page.textContent('.search-count')).toBe('1 of 1 match');
    // A word every block has: Enter goes on, Shift+Enter back, g from the list goes on.
    await desk.page.fill('.doc-search', 'RIVER');
    await desk.page.press('.doc-search', 'Enter');
    await expect.poll(() => selected()).toBe('b43');
    await desk.page.press('.doc-search', 'Shift+Enter');
    await expect.poll(() => selected()).toBe('b42');
    expect(await desk.page.textContent('.search-count')).toBe(`42 of ${BLOCKS} matches`);
    await desk.page.press('.doc-search', 'Escape');
    await desk.page.keyboard.press('g');
    await expect.poll(() => selected()).toBe('b43');
    expect(await row('b43').locator('mark').first().textContent()).toBe('river');
    await shot(desk.page, shots, '3-search');
    await desk.page.fill('.doc-search', 'no such words anywhere');
    await desk.page.press('.doc-search', 'Enter');
    await expect.poll(() => desk.page.textContent('.search-count')).toBe('no match');
    await desk.page.fill('.doc-search', '');
  });

  it('filters by text, status and type together; the list and j/k follow the filter', async () => {
    // "harbour" is the noun of paragraphs 10 to 19.
    await desk.page.fill('.list-filters .filter-text', 'harbour');
    await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe(`10 of ${BLOCKS} shown`);
    await expect
      .poll(async () => (await listRows()).every((id) => sentence(Number(id.slice(1))).includes('harbour')))
      .toBe(true);
    expect((await listRows()).length).toBeLessThanOrEqual(10);
    await desk.page.locator('.vlist').focus();
    await desk.page.keyboard.press('k');
    await desk.page.keyboard.press('k');
    const first = await selected();
    await desk.page.keyboard.press('j');
    await expect.poll(() => selected()).toBe(`b${Number(first!.slice(1)) + 1}`);
    await desk.page.selectOption('.list-filters .filter-type', 'paragraph');
    await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe(`10 of ${BLOCKS} shown`);
    await desk.page.selectOption('.list-filters .filter-status', 'approved');
    await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe(`0 of ${BLOCKS} shown`);
    await shot(desk.page, shots, '4-filters-empty');
    await desk.page.selectOption('.list-filters .filter-status', 'pending');
    await desk.page.selectOption('.list-filters .filter-confidence', 'flagged');
    await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe(`0 of ${BLOCKS} shown`);
    await desk.page.selectOption('.list-filters .filter-confidence', 'text');
    await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe(`10 of ${BLOCKS} shown`);
    await shot(desk.page, shots, '4-filters');
    await desk.page.click('.list-filters .filter-clear');
    await expect
      .poll(async () => (await listRows()).some((id) => !sentence(Number(id.slice(1))).includes('harbour')))
      .toBe(true);
  });
});

describe('notes in the list', () => {
  it("shows a block's note in its row, not only on hover; undo takes it away; a reload shows it again", async () => {
    await desk.page.locator('.vlist').focus();
    await selectBlock(5);
    await desk.page.keyboard.press('n');
    await desk.page.waitForSelector('.block-row.editing .edit-note:focus');
    await desk.page.keyboard.type('Check the figure caption on the original page');
    await desk.page.keyboard.press('Control+Enter');
    await expect
      .poll(async () => (await block('b5')).reviewer_note)
      .toBe('Check the figure caption on the original page');
    await expect
      .poll(() => row('b5').locator('.row-note').textContent())
      .toBe('✉ Check the figure caption on the original page');
    expect(await row('b5').locator('.row-note').isVisible()).toBe(true);
    await shot(desk.page, shots, '5-note');
    await desk.page.keyboard.press('u');
    await expect.poll(async () => (await block('b5')).reviewer_note).toBeNull();
    await expect.poll(() => row('b5').locator('.row-note').count()).toBe(0);
    await desk.page.keyboard.press('n');
    await desk.page.waitForSelector('.block-row.editing .edit-note:focus');
    await desk.page.keyboard.type('Kept note');
    await desk.page.keyboard.press('Control+Enter');
    await expect.poll(async () => (await block('b5')).reviewer_note).toBe('Kept note');
    await desk.page.reload();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => row('b5').locator('.row-note').textContent()).toBe('✉ Kept note');
  });
});

describe('split, merge and reading order', () => {
  it('splits a block where the cursor is; undo makes it whole; done again, a reload shows both parts', async () => {
    await desk.page.locator('.vlist').focus();
    await selectBlock(3);
    const before = await ids();
    const whole = sentence(3);
    const at = whole.indexOf('every');
    await desk.page.keyboard.press('s');
    await desk.page.waitForSelector('dialog[open] .split-text');
    await desk.page.locator('dialog[open] .split-text').evaluate((el, at) => {
      const t = el as HTMLTextAreaElement;
      t.focus();
      t.setSelectionRange(at, at);
      t.dispatchEvent(new Event('select'));
    }, at);
    await expect.poll(() => desk.page.textContent('dialog[open] .split-hint')).toContain(`Cut at character ${at}`);
    await shot(desk.page, shots, '6-split-dialog');
    await desk.page.click('dialog[open] button:has-text("Split here")');
    await expect.poll(async () => (await ids()).length).toBe(before.length + 1);
    const after = await ids();
    const newId = after[after.indexOf('b3') + 1]!;
    expect(newId).not.toBe('b4');
    expect(effective(await block('b3'))).toBe(whole.slice(0, at).trimEnd());
    expect(effective(await block(newId))).toBe(whole.slice(at));
    await expect.poll(() => selected()).toBe(newId);
    await expect.poll(() => row(newId).locator('.row-text').textContent()).toBe(whole.slice(at));
    await expect.poll(() => desk.page.textContent('.review-toolbar .loading-note')).toBe(`${before.length + 1} blocks`);
    await shot(desk.page, shots, '6-split');
    await desk.page.keyboard.press('u');
    await waitForToast('Undid split block');
    await expect.poll(() => ids()).toEqual(before);
    await expect.poll(() => row('b3').locator('.row-text').textContent()).toBe(whole);
    await expect.poll(() => row(newId).count()).toBe(0);
    // Again, and kept: a reload reads it from the server.
    await selectBlock(3);
    await desk.page.keyboard.press('s');
    await desk.page.waitForSelector('dialog[open] .split-text');
    await desk.page
      .locator('dialog[open] .split-text')
      .evaluate((el, at) => (el as HTMLTextAreaElement).setSelectionRange(at, at), at);
    await desk.page.click('dialog[open] button:has-text("Split here")');
    await expect.poll(async () => (await ids()).length).toBe(before.length + 1);
    await desk.page.reload();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    const kept = await ids();
    await expect
      .poll(() =>
        row(kept[kept.indexOf('b3') + 1]!)
          .locator('.row-text')
          .textContent(),
      )
      .toBe(whole.slice(at));
  });

  it('merges a block with the next one; undo brings the second back; merged again for the export', async () => {
    await desk.page.locator('.vlist').focus();
    await selectBlock(7);
    const before = await ids();
    await desk.page.click('.structure-tools button.merge-next');
    await expect.poll(async () => (await ids()).length).toBe(before.length - 1);
    expect(effective(await block('b7'))).toBe(`${sentence(7)} ${sentence(8)}`);
    await expect.poll(() => row('b7').locator('.row-text').textContent()).toBe(`${sentence(7)} ${sentence(8)}`);
    await expect.poll(() => row('b8').count()).toBe(0);
    await shot(desk.page, shots, '7-merge');
    await desk.page.keyboard.press('u');
    await expect.poll(() => ids()).toEqual(before);
    await expect.poll(() => row('b8').locator('.row-text').textContent()).toBe(sentence(8));
    expect(effective(await block('b7'))).toBe(sentence(7));
    await selectBlock(7);
    await desk.page.keyboard.press('m');
    await expect.poll(async () => (await ids()).length).toBe(before.length - 1);
  });

  it('fixes the reading order by dragging a row and with Shift+J; each undone; a reload shows the order', async () => {
    await desk.page.locator('.vlist').focus();
    await selectBlock(11);
    const before = await ids();
    // b13 dropped on the top half of b11's row: it goes before b11.
    await row('b13').dragTo(row('b11'), { targetPosition: { x: 40, y: 6 } });
    await expect.poll(async () => (await ids()).join(' ')).toContain('b10 b13 b11 b12 b14');
    await expect.poll(() => listRows().then((r) => r.join(' '))).toContain('b10 b13 b11 b12 b14');
    await shot(desk.page, shots, '8-dragged');
    await desk.page.keyboard.press('u');
    await expect.poll(() => ids()).toEqual(before);
    await row('b13').dragTo(row('b11'), { targetPosition: { x: 40, y: 6 } });
    await expect.poll(async () => (await ids()).join(' ')).toContain('b10 b13 b11 b12 b14');
    // The keyboard does the same: Shift+J moves the selected block one place down.
    await selectBlock(20);
    await desk.page.keyboard.press('Shift+J');
    await expect.poll(async () => (await ids()).join(' ')).toContain('b19 b21 b20 b22');
    await expect.poll(() => selected()).toBe('b20');
    await desk.page.keyboard.press('u');
    await expect.poll(async () => (await ids()).join(' ')).toContain('b19 b20 b21 b22');
    await desk.page.reload();
    await desk.page.waitForSelector('.review[data-loaded=true]');
    await selectBlock(11);
    await expect.poll(() => listRows().then((r) => r.join(' '))).toContain('b10 b13 b11 b12 b14');
  });

  it('the export carries the split, the merge and the new order; a finalized job refuses them', async () => {
    const order = await listAll(desk.server, `/jobs/${jobId}/blocks`);
    const fin = await desk.server.call('POST', `/jobs/${jobId}/finalize`, {
      json: { finalize_policy: 'auto_approve_pending' },
    });
    expect(fin.status).toBe(200);
    const res = await desk.server.call('GET', `/jobs/${jobId}/export`);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const md = strFromU8(Object.entries(files).find(([name]) => name.endsWith('document.md'))![1]);
    // Every block, each found after the one before it (the split's second half repeats words of others).
    let from = 0;
    for (const b of order) {
      const p = md.indexOf(effective(b as Block), from);
      expect(p, `${b.block_id} after position ${from}`).toBeGreaterThanOrEqual(0);
      from = p + 1;
    }
    expect(md).toContain(`${sentence(7)} ${sentence(8)}`);
    expect(md.indexOf(sentence(13))).toBeLessThan(md.indexOf(sentence(11)));
    expect(md.indexOf(sentence(3).slice(0, sentence(3).indexOf('every')).trimEnd())).toBeLessThan(
      md.indexOf(sentence(4)),
    );
    await openDesk();
    await desk.page.keyboard.press('m');
    await waitForToast('read-only');
    expect((await ids()).length).toBe(order.length);
    expect(desk.logs.filter((l) => !/Failed to load resource/.test(l))).toEqual([]);
  });
});

describe('next flagged on a scanned document', () => {
  it('visits every flagged pending block, round the end, and the confidence filter shows just them', async () => {
    const scanned = await ingest(
      desk.server,
      'booktabs-scan.pdf',
      new Uint8Array(readFileSync(join(fixturesDir, 'scanned/scan02-booktabs-p2.pdf'))),
    );
    const all = (await listAll(desk.server, `/jobs/${scanned.job_id}/blocks`)) as Block[];
    const flagged = all.filter((b) => b.flagged).map((b) => b.block_id);
    expect(flagged.length).toBeGreaterThan(0);
    await openDesk(scanned.job_id);
    await desk.page.locator('.vlist').focus();
    if (flagged.length === 1) {
      // One flagged block: F goes to it, and again says there is no other.
      await desk.page.keyboard.press('f');
      await expect.poll(() => selected()).toBe(flagged[0]);
      await desk.page.keyboard.press('f');
      await waitForToast('No other flagged block still pending');
      expect(await selected()).toBe(flagged[0]);
      await desk.page.selectOption('.list-filters .filter-confidence', 'flagged');
      await expect.poll(() => desk.page.textContent('.list-filters .filter-count')).toBe(`1 of ${all.length} shown`);
      return void (await shot(desk.page, shots, '9-flagged'));
    }
    const seen: string[] = [];
    const said: string[] = [];
    for (let k = 0; k <= flagged.length; k++) {
      const was = await selected();
      await desk.page.keyboard.press('f');
      await expect.poll(() => selected()).not.toBe(was);
      seen.push((await selected())!);
      said.push((await toasts()) ?? '');
    }
    // One more press than there are flagged blocks: every one visited, then round to the first again.
    expect(new Set(seen)).toEqual(new Set(flagged));
    expect(seen[seen.length - 1]).toBe(seen[0]);
    expect(said.join('\n')).toContain('Went round to the first flagged block still pending');
    await desk.page.selectOption('.list-filters .filter-confidence', 'flagged');
    await expect
      .poll(() => desk.page.textContent('.list-filters .filter-count'))
      .toBe(`${flagged.length} of ${all.length} shown`);
    await shot(desk.page, shots, '9-flagged');
  });
});
