import { describe, expect, it } from 'vitest';
import { ingest } from '../helpers/app.js';
import { makePptx, makeXlsx } from '../helpers/make-office.js';
import { useDesk } from './helpers/desk.js';
import { openReview } from './helpers/review.js';
import { screenshotDir, shot } from './helpers/screens.js';

const shots = screenshotDir('formats-desk');
const desk = useDesk({ timeout: 300_000 });

async function openJob(jobId: string): Promise<void> {
  await desk.page.goto('about:blank');
  await openReview(desk.page, desk.server, jobId);
}

describe('spreadsheets and slides in the desk', () => {
  it('shows an XLSX sheet as a table block with its cells', async () => {
    const data = await makeXlsx([
      {
        name: 'Sales',
        rows: [
          ['Region', 'Units'],
          ['North', 120],
          ['South', 80],
        ],
      },
    ]);
    const job = await ingest(desk.server, 'sales.xlsx', data);
    await openJob(job.job_id);
    const rows = desk.page.locator('.vlist .block-row');
    await expect.poll(() => rows.count()).toBe(2);
    const table = rows.nth(1);
    await expect.poll(() => table.textContent()).toContain('North');
    expect(await table.textContent()).toContain('Region');
    expect(await rows.nth(0).textContent()).toContain('Sales');
    await shot(desk.page, shots, '1-xlsx');
    expect(desk.logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('shows a PPTX deck in slide order with its speaker notes', async () => {
    const data = await makePptx([
      { title: 'Opening', bullets: [{ text: 'Why we are here' }], notes: 'Smile.' },
      { title: 'Closing', text: 'Thank you.' },
    ]);
    const job = await ingest(desk.server, 'talk.pptx', data);
    await openJob(job.job_id);
    const rows = desk.page.locator('.vlist .block-row');
    await expect.poll(() => rows.count()).toBe(5);
    const texts = await rows.allTextContents();
    expect(texts.findIndex((t) => t.includes('Opening'))).toBeLessThan(texts.findIndex((t) => t.includes('Closing')));
    expect(texts.some((t) => t.includes('Speaker notes: Smile.'))).toBe(true);
    await shot(desk.page, shots, '2-pptx');
    expect(desk.logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});
