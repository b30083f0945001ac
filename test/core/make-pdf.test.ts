import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import {
  BLANK_PAGE_PDF,
  MANY_BLOCKS_PER_PAGE,
  STRUCTURED_PDF,
  longPdfHeadingPages,
  makeBlankPagePdf,
  makeLongPdf,
  makeManyBlocksPdf,
  makeStructuredPdf,
  manyBlocksSentence,
} from '../helpers/make-pdf.js';

/** One text run as pdf.js sees it, with y measured from the page's top. */
interface Run {
  str: string;
  x: number;
  top: number;
  size: number;
}

async function readRuns(pdf: Buffer): Promise<Run[][]> {
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, verbosity: 0 }).promise;
  const pages: Run[][] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const page = await doc.getPage(p);
    const height = page.getViewport({ scale: 1 }).height;
    const content = await page.getTextContent();
    const runs: Run[] = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str.trim() === '') continue;
      const [, , , d = 0, e = 0, f = 0] = item.transform as number[];
      runs.push({ str: item.str, x: e, top: height - f, size: Math.abs(d) });
    }
    pages.push(runs);
  }
  await doc.destroy();
  return pages;
}

/** Runs grouped into visual lines (same baseline), top to bottom, each line's runs left to right. */
function lines(runs: Run[]): string[] {
  const sorted = [...runs].sort((a, b) => a.top - b.top || a.x - b.x);
  const out: { top: number; parts: string[] }[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && Math.abs(last.top - r.top) < 1) last.parts.push(r.str);
    else out.push({ top: r.top, parts: [r.str] });
  }
  return out.map((l) => l.parts.join(' ').replace(/\s+/g, ' ').trim());
}

function find(runs: Run[], needle: string): Run {
  const run = runs.find((r) => r.str.includes(needle));
  if (!run) throw new Error(`no run contains ${needle}`);
  return run;
}

const hasPdftotext = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('makeStructuredPdf', () => {
  it('has three pages, each with the running header and its footer', async () => {
    const pages = await readRuns(await makeStructuredPdf());
    expect(pages).toHaveLength(STRUCTURED_PDF.pageCount);
    pages.forEach((runs, i) => {
      const ls = lines(runs);
      expect(ls[0]).toBe(STRUCTURED_PDF.header);
      expect(ls.at(-1)).toBe(STRUCTURED_PDF.footers[i]);
    });
  });

  it('sets headings bold and larger than body text, by level', async () => {
    const pages = await readRuns(await makeStructuredPdf());
    const body = find(pages[0] ?? [], 'This report exercises').size;
    const sizes = STRUCTURED_PDF.headings.map((h) => find(pages[h.page - 1] ?? [], h.text).size);
    STRUCTURED_PDF.headings.forEach((h, i) => {
      const size = sizes[i] ?? 0;
      expect(size).toBeGreaterThan(body);
      const sameLevel = STRUCTURED_PDF.headings.findIndex((o) => o.level === h.level);
      expect(size).toBeCloseTo(sizes[sameLevel] ?? 0, 5);
    });
    const level = (l: number): number => sizes[STRUCTURED_PDF.headings.findIndex((h) => h.level === l)] ?? 0;
    expect(level(1)).toBeGreaterThan(level(2));
    expect(level(2)).toBeGreaterThan(level(3));
  });

  it('holds the paragraphs, the hyphenated line end, both lists, the code and the table', async () => {
    const pages = await readRuns(await makeStructuredPdf());
    const text = pages.map((p) => lines(p).join('\n'));
    const flat = (page: number): string => (text[page - 1] ?? '').replace(/-\n/g, '').replace(/\n/g, ' ');
    for (const p of STRUCTURED_PDF.paragraphs) expect(flat(p.page)).toContain(p.text);
    const page1 = lines(pages[0] ?? []);
    const hyphenAt = page1.findIndex((l) => l.endsWith(STRUCTURED_PDF.hyphenation.lineEnd));
    expect(hyphenAt).toBeGreaterThan(0);
    expect(page1[hyphenAt + 1]?.startsWith(STRUCTURED_PDF.hyphenation.nextLineStart)).toBe(true);
    for (const item of [...STRUCTURED_PDF.bulletItems, ...STRUCTURED_PDF.numberedItems]) expect(page1).toContain(item);
    const page2 = text[1] ?? '';
    for (const line of STRUCTURED_PDF.code.lines) expect(page2).toContain(line.trim());
    const page2Lines = lines(pages[1] ?? []);
    for (const row of STRUCTURED_PDF.table.rows) expect(page2Lines).toContain(row.join(' '));
    const last = STRUCTURED_PDF.table.rows.at(-1)?.join(' ') ?? '';
    expect(page2Lines[page2Lines.indexOf(last) + 1]).toBe(STRUCTURED_PDF.table.caption);
  });

  it('lays page 3 out in two columns whose lines share heights', async () => {
    const page3 = (await readRuns(await makeStructuredPdf()))[2] ?? [];
    const c = STRUCTURED_PDF.columns;
    const leftStart = find(page3, c.leftStart);
    const leftEnd = find(page3, c.leftEnd);
    const rightStart = find(page3, c.rightStart);
    const rightEnd = find(page3, c.rightEnd);
    expect(rightStart.x).toBeGreaterThan(leftEnd.x + 150);
    expect(rightStart.top).toBeCloseTo(leftStart.top, 1);
    expect(leftEnd.top).toBeGreaterThan(rightEnd.top);
    // Every left-column line has a right-column neighbour at the same height until the right column ends.
    const leftTops = page3.filter((r) => r.x < rightStart.x - 10 && r.top > leftStart.top - 1).map((r) => r.top);
    const rightTops = new Set(page3.filter((r) => r.x >= rightStart.x - 1).map((r) => r.top.toFixed(1)));
    expect(leftTops.filter((t) => rightTops.has(t.toFixed(1))).length).toBeGreaterThanOrEqual(4);
  });

  it('is deterministic', async () => {
    expect((await makeStructuredPdf()).equals(await makeStructuredPdf())).toBe(true);
  });
});

describe('makeManyBlocksPdf', () => {
  it('puts exactly the requested paragraphs, 30 a page, well apart and nothing else', async () => {
    const count = 75;
    const pages = await readRuns(await makeManyBlocksPdf(count));
    expect(pages).toHaveLength(Math.ceil(count / MANY_BLOCKS_PER_PAGE));
    const all = pages.flatMap((p) => lines(p));
    expect(all).toEqual(Array.from({ length: count }, (_, i) => manyBlocksSentence(i + 1)));
    expect(new Set(all).size).toBe(count);
    for (const runs of pages) {
      const tops = [...runs].sort((a, b) => a.top - b.top);
      for (let i = 1; i < tops.length; i++) {
        const [prev, cur] = [tops[i - 1], tops[i]];
        if (prev && cur) expect(cur.top - prev.top).toBeGreaterThan(2.6 * cur.size);
      }
    }
  });

  it('handles 600 blocks', async () => {
    const pages = await readRuns(await makeManyBlocksPdf(600));
    expect(pages).toHaveLength(20);
    expect(pages.flatMap((p) => lines(p))).toHaveLength(600);
  });
});

describe('makeLongPdf', () => {
  it('makes the requested number of text-heavy pages, seeded and fast', async () => {
    const started = Date.now();
    const pdf = await makeLongPdf(60);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(pdf.equals(await makeLongPdf(60))).toBe(true);
    expect(pdf.equals(await makeLongPdf(60, 7))).toBe(false);
    const pages = await readRuns(pdf);
    expect(pages).toHaveLength(60);
    const headingPages = new Set(longPdfHeadingPages(60));
    pages.forEach((runs, i) => {
      const ls = lines(runs);
      expect(ls.at(-1)).toBe(`Page ${i + 1}`);
      expect(ls.join(' ').split(' ').length).toBeGreaterThan(150);
      const first = [...runs].sort((a, b) => a.top - b.top)[0];
      expect((first?.size ?? 0) > 11).toBe(headingPages.has(i + 1));
    });
  });
});

describe('makeBlankPagePdf', () => {
  it('has text on page 1 and nothing on page 2', async () => {
    const pages = await readRuns(await makeBlankPagePdf());
    expect(pages).toHaveLength(BLANK_PAGE_PDF.pageCount);
    const page1 = lines(pages[0] ?? []).join(' ');
    expect(page1).toContain(BLANK_PAGE_PDF.heading);
    expect(page1).toContain(BLANK_PAGE_PDF.text);
    expect(pages[1]).toEqual([]);
  });
});

describe.skipIf(!hasPdftotext)('generated PDFs through poppler pdftotext', () => {
  it('reads the same pages and text', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'make-pdf-'));
    try {
      const files = {
        structured: await makeStructuredPdf(),
        blank: await makeBlankPagePdf(),
        long: await makeLongPdf(20),
      };
      const text: Record<string, string> = {};
      for (const [name, pdf] of Object.entries(files)) {
        const file = path.join(dir, `${name}.pdf`);
        writeFileSync(file, pdf);
        text[name] = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      }
      const pagesOf = (t = ''): string[] => t.split('\f').slice(0, -1);
      expect(pagesOf(text.structured)).toHaveLength(3);
      expect(text.structured).toContain(STRUCTURED_PDF.columns.rightStart);
      expect(text.structured).toContain(STRUCTURED_PDF.table.caption);
      expect(pagesOf(text.blank)[1]?.trim()).toBe('');
      expect(pagesOf(text.long)).toHaveLength(20);
      expect(pagesOf(text.long)[19]).toContain('Page 20');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
