import { createCanvas, loadImage } from '@napi-rs/canvas';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderPdfPage } from '../../server/core/ocr/render-page.js';
import { ingest, listAll } from '../helpers/app.js';
import { onePagePdf } from '../helpers/make-pdf.js';
import { textThenScanPdf } from '../helpers/make-scan.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { useDesk } from './helpers/desk.js';
import { openReview, selectedBlock } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

// Filters by confidence: the desk's confidence filter (below 80%, below 50%, read by OCR, not
// OCR), chosen in Debian's chromium against the real server, on a generated document whose blocks the
// reader is sure of to different degrees: a page with a text layer, then a scanned page whose paragraphs
// lose more and more of their ink (tesseract is sure of them from about 95% down to below 50%). What each
// filter must show is worked out from the confidences the API reports, not from the desk's own code.

const shots = screenshotDir('review-confidence-filters');
const DPI = 200;

/** Paragraphs of the scanned page, each with the share of its ink pixels wiped out (seeded, so the same every run). */
const BANDS = [
  {
    y: 100,
    lines: [
      'The clear paragraph reads well at every size we tried.',
      'Its second line is just as clean and dark as the first.',
    ],
    wipe: 0,
  },
  {
    y: 250,
    lines: [
      'A worn paragraph whose letters faded in the copier.',
      'Some words are still readable though they look grey.',
    ],
    wipe: 0.3,
  },
  {
    y: 400,
    lines: ['Another paragraph almost lost under heavy speckle.', 'Only a few of its words survive the damaged scan.'],
    wipe: 0.45,
  },
  {
    y: 550,
    lines: ['The last paragraph was copied too many times over.', 'Its words break into pieces that barely hold.'],
    wipe: 0.55,
  },
] as const;

/** A two-page PDF: page 1 has a text layer; page 2 is only the image of a page whose paragraphs are worn unevenly. */
async function makeUnevenScanPdf(): Promise<Buffer> {
  const source = await onePagePdf((doc) => {
    for (const b of BANDS)
      b.lines.forEach((t, i) =>
        doc
          .font('Helvetica')
          .fontSize(12)
          .text(t, 72, b.y + i * 16, { lineBreak: false }),
      );
  });
  const rendered = await renderPdfPage(source, 1, DPI);
  const img = await loadImage(rendered.png);
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, img.width, img.height);
  const px = data.data;
  const scale = DPI / 72;
  for (const [k, b] of BANDS.entries()) {
    const rand = seededRandom(11 + k);
    const y0 = Math.floor((b.y - 20) * scale);
    const y1 = Math.ceil((b.y + 50) * scale);
    for (let y = y0; y < y1; y++) {
      for (let x = 0; x < img.width; x++) {
        const i = (y * img.width + x) * 4;
        const g = (px[i] ?? 255) < 200 && rand() < b.wipe ? 255 : (px[i] ?? 255);
        px[i] = g;
        px[i + 1] = g;
        px[i + 2] = g;
      }
    }
  }
  ctx.putImageData(data, 0, 0);
  return textThenScanPdf(
    (doc) => {
      doc
        .font('Helvetica')
        .fontSize(12)
        .text('A page with a text layer, read without OCR.', 72, 100, { lineBreak: false });
      doc
        .font('Helvetica')
        .fontSize(12)
        .text('Its second paragraph sits further down the page.', 72, 300, { lineBreak: false });
    },
    { png: canvas.encodeSync('png'), width: img.width, height: img.height, dpi: DPI },
  );
}

type Block = { block_id: string; page: number; source: string; confidence: number | null; text: string };

let jobId = '';
let blocks: Block[] = [];
const desk = useDesk({
  seed: async (server) => {
    jobId = (await ingest(server, 'uneven-scan.pdf', await makeUnevenScanPdf())).job_id;
    blocks = (await listAll(server, `/jobs/${jobId}/blocks`)) as Block[];
  },
  timeout: 300_000,
});

const listRows = () =>
  desk.page
    .locator('.vlist .block-row[data-block]')
    .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.block!));
const selected = () => selectedBlock(desk.page);

beforeAll(async () => {
  await openReview(desk.page, desk.server, jobId);
});

describe('the confidence filter', () => {
  it('narrows the list to the blocks below 80%, below 50%, read by OCR and not OCR, as the API reports them', async () => {
    const ids = (keep: (b: Block) => boolean) => blocks.filter(keep).map((b) => b.block_id);
    const all = ids(() => true);
    // Confidences as the API gives them for OCR: 0..100.
    const want: Record<string, string[]> = {
      ocr: ids((b) => b.source === 'ocr'),
      text: ids((b) => b.source !== 'ocr'),
      lt80: ids((b) => typeof b.confidence === 'number' && b.confidence < 80),
      lt50: ids((b) => typeof b.confidence === 'number' && b.confidence < 50),
    };
    // The document is what it was made to be: each filter keeps some blocks and leaves others out, and
    // each narrower one leaves out more (otherwise a filter that ignored its choice would pass).
    const described = blocks
      .map((b) => `${b.block_id} p${b.page} ${b.source} ${b.confidence} "${b.text.slice(0, 30)}"`)
      .join('\n');
    console.log(`blocks of the uneven scan:\n${described}`);
    expect(want.text!.length, described).toBeGreaterThan(0);
    expect(want.lt50!.length, described).toBeGreaterThan(0);
    expect(want.lt80!.length, described).toBeGreaterThan(want.lt50!.length);
    expect(want.ocr!.length, described).toBeGreaterThan(want.lt80!.length);
    expect(all.length).toBe(want.ocr!.length + want.text!.length);
    expect(blocks.filter((b) => b.source !== 'ocr').every((b) => b.page === 1)).toBe(true);

    await expect.poll(() => listRows()).toEqual(all);
    for (const choice of ['lt80', 'lt50', 'ocr', 'text'] as const) {
      await desk.page.selectOption('.list-filters .filter-confidence', choice);
      await expect.poll(() => listRows()).toEqual(want[choice]);
      expect(await desk.page.textContent('.list-filters .filter-count')).toBe(
        `${want[choice]!.length} of ${all.length} shown`,
      );
      // j steps through what the filter shows, and only that.
      await desk.page.click(`.vlist .block-row[data-block="${want[choice]![0]}"]`);
      await expect.poll(() => selected()).toBe(want[choice]![0]);
      await desk.page.locator('.vlist').focus();
      for (const next of want[choice]!.slice(1)) {
        await desk.page.keyboard.press('j');
        await expect.poll(() => selected()).toBe(next);
      }
      await shot(desk.page, shots, `filter-${choice}`);
    }
    await desk.page.click('.list-filters .filter-clear');
    await expect.poll(() => listRows()).toEqual(all);
    expect(await desk.page.textContent('.list-filters .filter-count')).toBe('');
    expect(desk.logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});
