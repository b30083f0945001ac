import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assemblePdf, extractPdf, readPdfPages, SHARE_RUN_PAGES } from '../../server/core/extract/pdf/index.js';
import { fixturesDir, ingest, listAll } from '../helpers/app.js';
import { useServer } from '../helpers/use-server.js';

interface FixtureDoc {
  id: string;
  file: string;
  pages: number;
  has_tables: boolean;
}
const manifest = JSON.parse(readFileSync(join(fixturesDir, 'manifest.json'), 'utf8')) as { documents: FixtureDoc[] };
const pdfs = manifest.documents.filter((d) => d.file.startsWith('pdfs/'));

/** Pages with no text at all (pdftotext prints nothing for them): marked for OCR, not dropped silently. */
const BLANK_PAGES: Record<string, number[]> = { 'amsmath-userguide': [4] };

/** Block types each real document must show (beyond heading and paragraph, which all must). */
const EXPECTED_TYPES: Record<string, string[]> = {
  'booktabs-manual': ['table', 'footer'],
  'zoo-jss-paper': ['code', 'header', 'figure', 'caption'],
  'amsmath-userguide': ['list_item', 'footer'],
  'tugboat-babelbib': ['header', 'list_item'],
  'beamer-conference-talk': [],
  'survival-tiedtimes': [],
};

const server = useServer();

describe('every fixture PDF through the API', () => {
  it.each(pdfs.map((d) => [d.id, d] as const))('%s', async (_id, doc) => {
    const job = await ingest(server, `${doc.id}.pdf`, readFileSync(join(fixturesDir, doc.file)));
    expect(job.total_pages).toBe(doc.pages);
    expect(job.pages_needing_ocr).toEqual(BLANK_PAGES[doc.id] ?? []);
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    const counts: Record<string, number> = {};
    for (const b of blocks) counts[b.type] = (counts[b.type] ?? 0) + 1;
    console.info(`${doc.id}: ${doc.pages} pages, ${blocks.length} blocks ${JSON.stringify(counts)}`);
    for (const t of ['heading', 'paragraph', ...(EXPECTED_TYPES[doc.id] ?? [])])
      expect(counts[t] ?? 0, `${doc.id} has ${t}`).toBeGreaterThan(0);
    const pagesSeen = new Set(blocks.map((b) => b.page));
    expect(pagesSeen.size).toBe(doc.pages - (BLANK_PAGES[doc.id]?.length ?? 0));
    for (const b of blocks) {
      expect(b.bbox.x0).toBeGreaterThanOrEqual(-1);
      expect(b.bbox.y0).toBeGreaterThanOrEqual(-1);
      expect(b.bbox.x1).toBeGreaterThan(b.bbox.x0);
      expect(b.text.trim().length).toBeGreaterThan(0);
    }
    if (doc.has_tables && doc.id === 'booktabs-manual') {
      const tables = blocks.filter((b) => b.type === 'table');
      for (const t of tables) expect(new Set(t.table.rows.map((r: string[]) => r.length)).size).toBe(1);
    }
    // The server's blocks are one reader's; and a long PDF is shared among threads in runs of pages, each
    // reader starting cold on whichever run comes free, so runs read apart and handed over in any order must
    // assemble exactly the same blocks (here at most SHARE_RUN_PAGES pages and at least two runs a document).
    const data = new Uint8Array(readFileSync(join(fixturesDir, doc.file)));
    const alone = await extractPdf(data);
    const key = (b: { page: number; type: string; text: string } | Record<string, any>) =>
      `${b.page} ${b.type} ${b.text}`;
    expect(blocks.filter((b) => b.source !== 'ocr').map(key)).toEqual(alone.blocks.map(key));
    const size = Math.min(SHARE_RUN_PAGES, Math.ceil(doc.pages / 2));
    const runs = [];
    for (let from = 1; from <= doc.pages; from += size)
      runs.push(await readPdfPages(data, { from, to: Math.min(doc.pages, from + size - 1) }));
    expect(assemblePdf(runs.reverse()).blocks.map(key)).toEqual(alone.blocks.map(key));
    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks.length).toBe(job.total_chunks);
    const covered = new Set(chunks.flatMap((c) => c.block_ids));
    const content = blocks.filter((b) => !['header', 'footer'].includes(b.type));
    expect(content.filter((b) => !covered.has(b.block_id))).toEqual([]);
  });
});
