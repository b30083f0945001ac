import type { Page } from 'playwright-core';
import { json, type ServerClient } from '../../helpers/app.js';

/** The fields of a block (GET /jobs/{id}/blocks/{block}) that the desk tests compare with what the desk shows. */
export interface ReviewBlock {
  block_id: string;
  version: number;
  text: string;
  edited_text: string | null;
  status: string;
  page: number;
}

/** A block as the server holds it, read beside the desk to check what a key press or a click saved. */
export async function readBlock<B extends ReviewBlock = ReviewBlock>(
  server: Pick<ServerClient, 'call'>,
  jobId: string,
  blockId: string,
): Promise<B> {
  return json(await server.call('GET', `/jobs/${jobId}/blocks/${blockId}`));
}

/** The id of the block selected in the review list, or null when none is. */
export function selectedBlock(page: Page): Promise<string | null> {
  return page.locator('.vlist .block-row.selected').getAttribute('data-block');
}

/** Opens the review of a job (at a block or page when `query` says, e.g. `?block=b3`) and waits for its blocks. */
export async function openReview(page: Page, server: { url: string }, jobId: string, query = ''): Promise<void> {
  await page.goto(`${server.url}/#/jobs/${jobId}/review${query}`);
  await page.waitForSelector('.review[data-loaded=true]');
}

/** A block's box, in page points (from the server) or as fractions of the page (as drawn). */
export interface BBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Each box the review draws on the page image, by block id, as fractions of the drawn image. */
export function drawnBoxes(page: Page): Promise<Record<string, BBox>> {
  return page.evaluate(() => {
    const img = document.querySelector('.review .page-image')!.getBoundingClientRect();
    const out: Record<string, { x0: number; y0: number; x1: number; y1: number }> = {};
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('.review .page-sheet .box'))) {
      const r = el.getBoundingClientRect();
      out[el.dataset.block ?? ''] = {
        x0: (r.left - img.left) / img.width,
        y0: (r.top - img.top) / img.height,
        x1: (r.right - img.left) / img.width,
        y1: (r.bottom - img.top) / img.height,
      };
    }
    return out;
  });
}
