import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractPdf } from '../../server/core/extract/pdf/index.js';
import { warmUpPdf } from '../../server/core/extract/pdf/warm-up-pdf.js';
import { ingest, listAll, startServer, tempDir, type TestServer } from '../helpers/app.js';

describe('worker warm-up', () => {
  it('writes a PDF that poppler and Lectern both read, with the kinds of content real documents have', async () => {
    const pdf = warmUpPdf(4);
    const file = join(tempDir(), 'warm-up.pdf');
    writeFileSync(file, pdf);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('Table 1: Pages read per second');
    expect(text).toContain('await readPage(page, fonts);');
    // Its serif text is set in an embedded Type 1 program with a ToUnicode map, as TeX output is.
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
    expect(fonts).toMatch(/LWAAAA\+LecternSerif\s+Type 1\s+WinAnsi\s+yes\s+yes\s+yes/);
    const { blocks, total_pages } = await extractPdf(pdf);
    expect(total_pages).toBe(4);
    const types = new Set(blocks.map((b) => b.type));
    for (const t of ['heading', 'paragraph', 'table', 'code', 'figure', 'caption', 'footer'])
      expect(types, t).toContain(t);
  });

  let server: TestServer | undefined;
  afterAll(async () => server?.close());

  it('reports every thread warm in /health, then extracts as usual', async () => {
    server = await startServer({ settings: { warm_up_rounds: 2 } });
    let health: Record<string, any> = {};
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      health = (await (await server.call('GET', '/health')).json()) as Record<string, any>;
      if (health.workers.warm === health.workers.threads) break;
    }
    expect(health.workers).toEqual({ threads: 2, warm: 2 });
    const job = await ingest(server, 'warm-up.pdf', warmUpPdf(3));
    expect(job.status).toBe('ready_for_review');
    expect((await listAll(server, `/jobs/${job.job_id}/blocks`)).length).toBe(job.total_blocks);
  });
});
