import { strFromU8, unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ingest, json, listPage } from '../helpers/app.js';
import { makeLongPdf, makeStructuredPdf, STRUCTURED_PDF } from '../helpers/make-pdf.js';
import { deskPage } from './helpers/browser.js';
import { useDeskBrowser } from './helpers/desk.js';
import { type BBox, drawnBoxes, openReview, type ReviewBlock, readBlock, selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// The page side of the desk, as a reviewer uses it: zoom (keys, buttons, Ctrl+wheel) and pan by dragging
// with every box staying on its text; the thumbnail strip with each page's review status, fetched only
// for the pages in view; the selected block's region cut from the page beside the list; and "re-read
// region", whose new reading is offered beside the old text and, when used, is an edit that undoes, that
// a reload shows and that the export carries. Screenshots go to test-output/ui/page-tools/.

const LONG_PAGES = 60;
const shots = screenshotDir('page-tools');
let structuredId = '';
let rereadId = '';
let longId = '';
const desk = useDeskBrowser({
  seed: async (server) => {
    const structured = await makeStructuredPdf();
    const [a, b, c] = await Promise.all([
      ingest(server, 'structured.pdf', structured),
      ingest(server, 'structured-reread.pdf', structured),
      ingest(server, 'long.pdf', await makeLongPdf(LONG_PAGES)),
    ]);
    structuredId = a.job_id;
    rereadId = b.job_id;
    longId = c.job_id;
  },
  timeout: 300_000,
});

type Block = ReviewBlock & { bbox: BBox | null; type: string };

const block = (jobId: string, id: string) => readBlock<Block>(desk.server, jobId, id);
/** A page's blocks (fewer than 500). */
async function blocksOn(jobId: string, page: number): Promise<Block[]> {
  return (await listPage(desk.server, `/jobs/${jobId}/blocks?page=${page}&limit=500`)).items;
}

/** Opens the desk on a job (at a block or page when given) and waits for the page image and its boxes. */
async function openDesk(tab: Page, jobId: string, query = ''): Promise<void> {
  await openReview(tab, desk.server, jobId, query);
  await imageDrawn(tab);
}

async function imageDrawn(tab: Page): Promise<void> {
  await tab.waitForFunction(
    () => {
      const img = document.querySelector<HTMLImageElement>('.review .page-image');
      return (
        img !== null &&
        !img.hidden &&
        img.complete &&
        img.naturalWidth > 0 &&
        document.querySelectorAll('.review .page-sheet .box').length > 0
      );
    },
    undefined,
    { polling: 100, timeout: 60_000 },
  );
}

const zoom = (tab: Page) => tab.getAttribute('.page-scroll', 'data-zoom');
const scroller = (tab: Page) =>
  tab.evaluate(() => {
    const s = document.querySelector<HTMLElement>('.page-scroll')!;
    const sheet = document.querySelector<HTMLElement>('.page-sheet')!.getBoundingClientRect();
    const pane = s.getBoundingClientRect();
    return {
      left: s.scrollLeft,
      top: s.scrollTop,
      clientWidth: s.clientWidth,
      sheetWidth: sheet.width,
      sheetLeft: sheet.left,
      sheetTop: sheet.top,
      sheetHeight: sheet.height,
      pane: { x: pane.left, y: pane.top, w: pane.width, h: pane.height },
    };
  });

/** Where a page point (in PDF points) is on screen now. */
async function screenPoint(tab: Page, jobId: string, x: number, y: number): Promise<{ x: number; y: number }> {
  const size = (await json(await desk.server.call('GET', `/jobs/${jobId}`))).page_size as {
    width: number;
    height: number;
  };
  const s = await scroller(tab);
  return { x: s.sheetLeft + (x / size.width) * s.sheetWidth, y: s.sheetTop + (y / size.height) * s.sheetHeight };
}

describe('zoom and pan', () => {
  it('zooms with keys, buttons and Ctrl+wheel, pans by dragging, and keeps every box on its text', async () => {
    const { page: tab, logs, requests } = await deskPage(desk.browser, desk.server);
    await openDesk(tab, structuredId);
    const fit = await drawnBoxes(tab);
    expect(Object.keys(fit).length).toBeGreaterThan(3);
    const base = await tab.evaluate(
      () => document.querySelector<HTMLImageElement>('.review .page-image')!.naturalWidth,
    );
    const at1 = await scroller(tab);
    expect(await zoom(tab)).toBe('1');
    expect(await tab.textContent('.zoom-level')).toBe('Fit');

    // + three times: 125%, 150%, 200%; the sheet is twice the pane's width and every box is where it was on the image.
    for (const _ of [1, 2, 3]) await tab.keyboard.press('+');
    await expect.poll(() => zoom(tab)).toBe('2');
    expect(await tab.textContent('.zoom-level')).toBe('200%');
    const at2 = await scroller(tab);
    expect(at2.sheetWidth / at1.sheetWidth).toBeCloseTo(2, 2);
    // A sharper rendering replaces the page image (twice as wide, in the server's steps of 400 px).
    const naturalWidth = () =>
      tab.evaluate(() => document.querySelector<HTMLImageElement>('.review .page-image')!.naturalWidth);
    await expect.poll(naturalWidth, { timeout: 60_000 }).toBeGreaterThanOrEqual(base * 2);
    expect(
      requests.some((u) =>
        new RegExp(`/jobs/${structuredId}/pages/1/image\\?size=${Math.ceil((base * 2) / 400) * 400}$`).test(u),
      ),
    ).toBe(true);
    const zoomed = await drawnBoxes(tab);
    for (const [id, box] of Object.entries(fit)) {
      const z = zoomed[id]!;
      // A device pixel of the zoomed page, in fractions of its width.
      const px = 1.5 / at2.sheetWidth;
      expect(Math.abs(z.x0 - box.x0), id).toBeLessThan(px * 2);
      expect(Math.abs(z.x1 - box.x1), id).toBeLessThan(px * 2);
      expect(Math.abs(z.y0 - box.y0), id).toBeLessThan(px * 3);
      expect(Math.abs(z.y1 - box.y1), id).toBeLessThan(px * 3);
    }
    await shot(tab, shots, '1-zoom-200');

    // Moving along the blocks at 200% keeps the selected box in the pane, across as well as down.
    for (const _ of [1, 2, 3, 4, 5, 6]) await tab.keyboard.press('j');
    await expect
      .poll(() =>
        tab.evaluate(() => {
          const pane = document.querySelector('.page-scroll')!.getBoundingClientRect();
          const box = document.querySelector('.page-sheet .box.selected')?.getBoundingClientRect();
          // A box wider than the pane shows from its left edge.
          const across =
            box && box.left >= pane.left - 1 && (box.right <= pane.right + 1 || box.width > pane.width - 16);
          return Boolean(box && across && box.top >= pane.top - 1 && box.bottom <= pane.bottom + 1);
        }),
      )
      .toBe(true);

    // Ctrl+wheel zooms about the pointer: the page point under it stays under it.
    const s2 = await scroller(tab);
    const pointer = { x: s2.pane.x + s2.pane.w * 0.3, y: s2.pane.y + s2.pane.h * 0.4 };
    const under = (s: Awaited<ReturnType<typeof scroller>>) => ({
      fx: (pointer.x - s.sheetLeft) / s.sheetWidth,
      fy: (pointer.y - s.sheetTop) / s.sheetHeight,
    });
    const before = under(s2);
    await tab.mouse.move(pointer.x, pointer.y);
    await tab.keyboard.down('Control');
    await tab.mouse.wheel(0, -120);
    await tab.keyboard.up('Control');
    await expect.poll(() => zoom(tab)).toBe('2.5');
    const after = under(await scroller(tab));
    expect(Math.abs(after.fx - before.fx)).toBeLessThan(0.005);
    expect(Math.abs(after.fy - before.fy)).toBeLessThan(0.005);

    // Dragging pans, even when the press lands on a box, and selects nothing.
    const chosen = await selectedBlock(tab);
    // From the middle of what can be scrolled, so the drag has room both ways.
    await tab.evaluate(() => {
      const s = document.querySelector<HTMLElement>('.page-scroll')!;
      s.scrollLeft = (s.scrollWidth - s.clientWidth) / 2;
      s.scrollTop = (s.scrollHeight - s.clientHeight) / 2;
    });
    const s3 = await scroller(tab);
    // The press lands on a box in view.
    const start = await tab.evaluate(() => {
      const pane = document.querySelector('.page-scroll')!.getBoundingClientRect();
      for (const el of Array.from(document.querySelectorAll('.page-sheet .box:not(.selected)'))) {
        const r = el.getBoundingClientRect();
        const x = Math.max(r.left, pane.left) + 4;
        const y = Math.max(r.top, pane.top) + 3;
        if (
          x < Math.min(r.right, pane.right - 150) &&
          y < Math.min(r.bottom, pane.bottom - 120) &&
          document.elementFromPoint(x, y) === el
        )
          return { x, y };
      }
      return null;
    });
    // Without a box under the press the drag would not show that a press on a box pans.
    if (!start) throw new Error('no unselected box in view to press on');
    await tab.mouse.move(start.x, start.y);
    await tab.mouse.down();
    for (let k = 1; k <= 6; k++) await tab.mouse.move(start.x + 20 * k, start.y + 15 * k);
    await tab.mouse.up();
    const s4 = await scroller(tab);
    expect(s3.left - s4.left).toBeGreaterThan(100);
    expect(s3.top - s4.top).toBeGreaterThan(75);
    expect(await selectedBlock(tab)).toBe(chosen);
    await shot(tab, shots, '2-zoom-250-panned');

    // A plain click still selects the box under it.
    const target = tab.locator('.page-sheet .box:not(.selected)').first();
    const targetId = await target.getAttribute('data-block');
    await target.click();
    await expect.poll(() => selectedBlock(tab)).toBe(targetId);

    // 0 fits the page again; - goes below fit, where the sheet is centred; the buttons step too.
    await tab.locator('.vlist').focus();
    await tab.keyboard.press('0');
    await expect.poll(() => zoom(tab)).toBe('1');
    expect((await scroller(tab)).sheetWidth).toBeCloseTo(at1.sheetWidth, 0);
    await tab.keyboard.press('-');
    await expect.poll(() => zoom(tab)).toBe('0.75');
    const small = await scroller(tab);
    expect(small.sheetWidth / at1.sheetWidth).toBeCloseTo(0.75, 2);
    expect(Math.abs(small.sheetLeft - small.pane.x - (small.pane.w - small.sheetWidth) / 2)).toBeLessThan(2);
    await tab.click('.zoom-in');
    await expect.poll(() => zoom(tab)).toBe('1');
    await tab.click('.zoom-in');
    await expect.poll(() => zoom(tab)).toBe('1.25');
    await tab.click('.zoom-level');
    await expect.poll(() => zoom(tab)).toBe('1');
    const back = await drawnBoxes(tab);
    for (const [id, box] of Object.entries(fit)) expect(Math.abs(back[id]!.x0 - box.x0), id).toBeLessThan(0.003);
    // The keys are in the help.
    await tab.keyboard.press('?');
    const help = await tab.textContent('dialog[open]');
    expect(help).toContain('Zoom the page in');
    expect(help).toContain('Fit the page');
    await tab.keyboard.press('Escape');
    expect(logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
    await tab.close();
  });
});

describe('the selected block beside the list', () => {
  it("shows the selected block's region cut from the page image, and follows the selection and the editor", async () => {
    const { page: tab, logs } = await deskPage(desk.browser, desk.server);
    await openDesk(tab, structuredId);
    const first = await selectedBlock(tab);
    await expect.poll(() => tab.getAttribute('.region-crop', 'data-block')).toBe(first);
    expect(await tab.isVisible('.region-crop canvas')).toBe(true);
    /** The crop's shape and how much of it is ink. */
    const cropFigures = () =>
      tab.evaluate(() => {
        const c = document.querySelector<HTMLCanvasElement>('.region-crop canvas')!;
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 0; i < d.length; i += 4) if ((d[i]! + d[i + 1]! + d[i + 2]!) / 3 < 128) ink++;
        return {
          width: c.width,
          height: c.height,
          ink: ink / (c.width * c.height),
          sum: Array.from(d.subarray(0, 4000)).join(','),
        };
      });
    const blocks = await blocksOn(structuredId, 1);
    const size = (await json(await desk.server.call('GET', `/jobs/${structuredId}`))).page_size as {
      width: number;
      height: number;
    };
    const check = async (id: string) => {
      const b = blocks.find((x) => x.block_id === id)!;
      const f = await cropFigures();
      // The region is the block's box with 4 points around it, kept on the page.
      const w = Math.min(size.width, b.bbox!.x1 + 4) - Math.max(0, b.bbox!.x0 - 4);
      const h = Math.min(size.height, b.bbox!.y1 + 4) - Math.max(0, b.bbox!.y0 - 4);
      expect(f.width / f.height).toBeCloseTo(w / h, 0);
      expect(Math.abs(f.width / f.height - w / h) / (w / h)).toBeLessThan(0.05);
      // Text on white: some ink, mostly paper.
      expect(f.ink).toBeGreaterThan(0.01);
      expect(f.ink).toBeLessThan(0.6);
      return f;
    };
    const f1 = await check(first!);
    await tab.keyboard.press('j');
    const second = await selectedBlock(tab);
    expect(second).not.toBe(first);
    await expect.poll(() => tab.getAttribute('.region-crop', 'data-block')).toBe(second);
    const f2 = await check(second!);
    expect(f2.sum).not.toBe(f1.sum);
    // Editing: the region stays beside the editor.
    await tab.keyboard.press('e');
    await tab.waitForSelector('.block-row.editing textarea:focus');
    expect(await tab.getAttribute('.region-crop', 'data-block')).toBe(second);
    expect(await tab.isVisible('.region-crop canvas')).toBe(true);
    await shot(tab, shots, '3-crop-beside-editor');
    await tab.keyboard.press('Escape');
    expect(logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
    await tab.close();
  });
});

describe('page thumbnails', () => {
  it('show each page with its review status, fetch only those in view, go to a page on click, and follow approve, undo and a reload', async () => {
    const { page: tab, logs, requests } = await deskPage(desk.browser, desk.server);
    await openDesk(tab, longId);
    const thumbImages = () => requests.filter((u) => u.includes(`/jobs/${longId}/pages/`) && u.includes('size=160'));
    // The thumbnails in view get their images; no more than those (and a couple around) are asked for.
    await tab.waitForFunction(
      () => {
        const imgs = Array.from(document.querySelectorAll<HTMLImageElement>('.thumbs .thumb img'));
        return imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0);
      },
      undefined,
      { polling: 100, timeout: 60_000 },
    );
    const built = await tab.locator('.thumbs .thumb').count();
    expect(built).toBeLessThan(16);
    expect(thumbImages().length).toBe(built);
    expect(thumbImages().length).toBeLessThan(LONG_PAGES / 3);
    // The page on screen was asked for before any thumbnail.
    const firstPage = requests.findIndex((u) => u.includes(`/jobs/${longId}/pages/1/image`) && !u.includes('size=160'));
    const firstThumb = requests.findIndex((u) => u.includes('size=160'));
    expect(firstPage).toBeGreaterThanOrEqual(0);
    expect(firstPage).toBeLessThan(firstThumb);

    const onPage = (p: number) => blocksOn(longId, p);
    const thumb = (p: number) => tab.locator(`.thumbs .thumb[data-page="${p}"]`);
    const p1 = await onPage(1);
    expect(await thumb(1).getAttribute('data-pending')).toBe(String(p1.length));
    expect(await thumb(1).getAttribute('class')).toContain('current');
    expect(await thumb(1).textContent()).toContain(`${p1.length} left`);

    // Shift+A: the page's thumbnail turns approved; U turns it back.
    await tab.keyboard.press('Shift+A');
    await expect.poll(() => thumb(1).getAttribute('data-approved')).toBe(String(p1.length));
    expect(await thumb(1).getAttribute('data-pending')).toBe('0');
    expect(await thumb(1).textContent()).toContain('done');
    expect(
      await thumb(1)
        .locator('.thumb-bar .approved')
        .evaluate((e) => (e as HTMLElement).style.width),
    ).toBe('100%');
    await shot(tab, shots, '4-thumbs-approved');
    await tab.keyboard.press('u');
    await expect.poll(() => thumb(1).getAttribute('data-pending')).toBe(String(p1.length));
    expect(await thumb(1).getAttribute('data-approved')).toBe('0');

    // A click on page 3's thumbnail goes to page 3.
    await thumb(3).click();
    await expect.poll(() => tab.textContent('.page-caption')).toBe('Page 3');
    const p3 = await onPage(3);
    await expect.poll(() => selectedBlock(tab)).toBe(p3[0]!.block_id);
    await expect.poll(() => thumb(3).getAttribute('class')).toContain('current');
    // Reject one block of page 3: its thumbnail counts it.
    await tab.locator('.vlist').focus();
    await tab.keyboard.press('r');
    await expect.poll(() => thumb(3).getAttribute('data-rejected')).toBe('1');

    // Going to the last page scrolls the strip there, and only then are its thumbnails fetched.
    expect(thumbImages().some((u) => u.includes(`/pages/${LONG_PAGES}/image`))).toBe(false);
    await tab.fill('.review-toolbar .page-input', String(LONG_PAGES));
    await tab.press('.review-toolbar .page-input', 'Enter');
    await expect.poll(() => thumb(LONG_PAGES).getAttribute('class')).toContain('current');
    await expect
      .poll(
        () =>
          thumb(LONG_PAGES)
            .locator('img')
            .evaluate((i) => (i as HTMLImageElement).naturalWidth),
        { timeout: 60_000 },
      )
      .toBeGreaterThan(0);
    expect(thumbImages().length).toBeLessThan(LONG_PAGES / 2);
    await shot(tab, shots, '5-thumbs-last-page');

    // After a reload the strip shows what the server keeps.
    await tab.reload();
    await tab.waitForSelector('.review[data-loaded=true]');
    await tab.fill('.review-toolbar .page-input', '3');
    await tab.press('.review-toolbar .page-input', 'Enter');
    await expect.poll(() => thumb(3).getAttribute('data-rejected')).toBe('1');
    expect(await thumb(3).getAttribute('data-pending')).toBe(String(p3.length - 1));
    expect(logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
    await tab.close();
  });
});

describe('re-read a region', () => {
  it('offers the new reading beside the old text; using it is an edit that undoes, survives a reload and reaches the export', async () => {
    const { page: tab, logs } = await deskPage(desk.browser, desk.server);
    const blocks = await blocksOn(rereadId, 1);
    const para = blocks.find((b) => b.text.startsWith(STRUCTURED_PDF.paragraphs[0]!.text.slice(0, 30)))!;
    expect(para?.bbox).toBeTruthy();
    await openDesk(tab, rereadId, `?block=${para.block_id}`);
    await expect.poll(() => selectedBlock(tab)).toBe(para.block_id);
    const box = para.bbox!;

    /** Drags a region over the page from one page point to another (in points). */
    const dragRegion = async (from: { x: number; y: number }, to: { x: number; y: number }) => {
      await tab.click('.reread-start');
      await tab.waitForSelector('.page-sheet .region-draw');
      const a = await screenPoint(tab, rereadId, from.x, from.y);
      const b = await screenPoint(tab, rereadId, to.x, to.y);
      await tab.mouse.move(a.x, a.y);
      await tab.mouse.down();
      for (let k = 1; k <= 5; k++) await tab.mouse.move(a.x + ((b.x - a.x) * k) / 5, a.y + ((b.y - a.y) * k) / 5);
      await tab.mouse.up();
    };
    // The first line of the paragraph only: the reading offered is that line, not the whole block.
    const firstLine = async () => {
      await dragRegion({ x: box.x0 - 2, y: box.y0 - 2 }, { x: box.x1 + 2, y: box.y0 + 12 });
      await tab.waitForSelector('dialog.reread-dialog[open]', { timeout: 120_000 });
      return tab.inputValue('dialog.reread-dialog textarea');
    };
    const offered = await firstLine();
    expect(offered.length).toBeGreaterThan(20);
    expect(para.text.startsWith(offered.split(/\s+/).slice(0, 3).join(' '))).toBe(true);
    expect(offered.length).toBeLessThan(para.text.length / 2);
    expect(await tab.textContent('dialog.reread-dialog pre.old')).toBe(para.text);
    expect(await tab.locator('dialog.reread-dialog canvas').count()).toBe(1);
    await shot(tab, shots, '6-reread-offer');

    // Keep current: nothing changes.
    await tab.click('dialog.reread-dialog button[data-value=keep]');
    await tab.waitForSelector('dialog.reread-dialog', { state: 'detached' });
    expect(await block(rereadId, para.block_id)).toMatchObject({
      version: para.version,
      edited_text: null,
      status: 'pending',
    });

    // Use new text: the block holds it as an edit, the row shows it.
    expect(await firstLine()).toBe(offered);
    await tab.click('dialog.reread-dialog button[data-value=use]');
    await expect.poll(async () => (await block(rereadId, para.block_id)).edited_text).toBe(offered);
    expect((await block(rereadId, para.block_id)).status).toBe('edited');
    await expect
      .poll(() => tab.textContent(`.vlist .block-row[data-block="${para.block_id}"] .row-text`))
      .toBe(offered);
    const actions = (await listPage(desk.server, `/jobs/${rereadId}/audit?entity_id=${para.block_id}`)).items.map(
      (e: { action: string }) => e.action,
    );
    // Only the reviewer's edit: the region was read without writing (apply: false).
    expect(actions).not.toContain('reocr');
    expect(actions.length).toBeGreaterThan(0);

    // U takes it back to the extracted text.
    await tab.locator('.vlist').focus();
    await tab.keyboard.press('u');
    await expect.poll(async () => (await block(rereadId, para.block_id)).edited_text).toBeNull();
    expect((await block(rereadId, para.block_id)).status).toBe('pending');
    await expect
      .poll(() => tab.textContent(`.vlist .block-row[data-block="${para.block_id}"] .row-text`))
      .toBe(para.text);

    // The block's own box: Enter takes it while choosing; the whole paragraph is read.
    await tab.click('.reread-start');
    await tab.waitForSelector('.page-sheet .region-draw');
    await tab.keyboard.press('Enter');
    await tab.waitForSelector('.page-sheet .region-draw', { state: 'detached' });
    const whole = await Promise.race([
      tab.waitForSelector('dialog.reread-dialog[open]', { timeout: 120_000 }).then(() => 'dialog' as const),
      tab.waitForSelector('.toast:has-text("same as the text")', { timeout: 120_000 }).then(() => 'same' as const),
    ]);
    if (whole === 'dialog') {
      const text = await tab.inputValue('dialog.reread-dialog textarea');
      expect(text.length).toBeGreaterThan(para.text.length * 0.8);
      await tab.keyboard.press('Escape');
      await tab.waitForSelector('dialog.reread-dialog', { state: 'detached' });
    }
    expect((await block(rereadId, para.block_id)).edited_text).toBeNull();
    // O starts choosing from the keyboard; Escape then reads nothing.
    await tab.locator('.vlist').focus();
    await tab.keyboard.press('o');
    await tab.waitForSelector('.page-sheet .region-draw');
    await tab.keyboard.press('Escape');
    await tab.waitForSelector('.page-sheet .region-draw', { state: 'detached' });
    expect(await tab.isVisible('dialog.reread-dialog')).toBe(false);

    // Use the first line again, reload: the desk shows it; finalize: the export carries it.
    expect(await firstLine()).toBe(offered);
    await tab.click('dialog.reread-dialog button[data-value=use]');
    await expect.poll(async () => (await block(rereadId, para.block_id)).edited_text).toBe(offered);
    await tab.reload();
    await tab.waitForSelector('.review[data-loaded=true]');
    await expect.poll(() => selectedBlock(tab)).toBe(para.block_id);
    await expect
      .poll(() => tab.textContent(`.vlist .block-row[data-block="${para.block_id}"] .row-text`))
      .toBe(offered);
    await shot(tab, shots, '7-reread-used-reloaded');
    const fin = await desk.server.call('POST', `/jobs/${rereadId}/finalize`, {
      json: { finalize_policy: 'auto_approve_pending' },
    });
    expect(fin.status).toBe(200);
    const zip = unzipSync(
      new Uint8Array(await (await desk.server.call('GET', `/jobs/${rereadId}/export`)).arrayBuffer()),
    );
    const md = strFromU8(zip[Object.keys(zip).find((n) => n.endsWith('document.md'))!]!);
    expect(md).toContain(offered);
    expect(md).not.toContain(para.text);
    // A finalized job: the desk refuses to re-read.
    await tab.reload();
    await tab.waitForSelector('.review[data-loaded=true]');
    await tab.waitForSelector('.review-toolbar .read-only:not([hidden])');
    await tab.click('.reread-start');
    await tab.waitForSelector('.toast:has-text("read-only")');
    expect(await tab.locator('.page-sheet .region-draw').count()).toBe(0);
    expect(logs.filter((l) => /pageerror|Content Security Policy/.test(l))).toEqual([]);
    await tab.close();
  });
});
