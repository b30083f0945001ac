/**
 * Extraction floor benchmark (`npm run bench:extract`): what one thread costs per PDF, with no server, pool,
 * database or HTTP, beside pdftotext on the same files: the figures that say how close `bench:ingest` can get
 * to pdftotext's time on two cores.
 *
 * In one thread, after `--warm-up` readings of the worker's warm-up PDF (as a pool thread does at start), each
 * file is read in turn (the fixture PDFs, then the generated 500-page PDF):
 * - first: its first whole reading (readPdfPages + assemblePdf, as the worker does), right after the files
 *   before it: how long a thread that has not seen this kind of document takes;
 * - warm: the median of `--repeat` more readings;
 * - bare: the median of `--repeat` runs of pdf.js's text layer alone (getTextContent on every page, no layout).
 * pdftotext is timed on the same files (median of 3).
 *
 * Usage: tsx bench/extract.ts [--pages 500] [--fixtures DIR] [--warm-up 6] [--repeat 4]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { assemblePdf, readPdfPages } from '../server/core/extract/pdf/index.js';
import { openPdf } from '../server/core/extract/pdf/pdfjs-loader.js';
import { warmUpPdf } from '../server/core/extract/pdf/warm-up-pdf.js';
import { makeLongPdf } from '../test/helpers/make-pdf.js';
import { ms, table } from './lib/format.js';
import { ensurePdftotext, pdftotextVersion, timePdftotext } from './lib/pdftotext.js';
import { median } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '500' },
    fixtures: { type: 'string' },
    'warm-up': { type: 'string', default: '6' },
    repeat: { type: 'string', default: '4' },
  },
});
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const fixtures = values.fixtures ?? path.resolve(repoRoot, '../shared/fixtures/pdfs');
const repeat = Math.max(1, Number(values.repeat));

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

async function sequence(n: number, work: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await timed(work));
  return out;
}

const readWhole = (data: Uint8Array) => async () => assemblePdf([await readPdfPages(data)]);

const readBare = (data: Uint8Array) => async () => {
  const { doc } = await openPdf(data);
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      await page.getTextContent();
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
};

const check = ensurePdftotext((line) => console.log(line));
if (!check.ok) {
  console.error(check.advice);
  process.exit(1);
}
const scratch = mkdtempSync(path.join(os.tmpdir(), 'bench-extract-'));
process.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
const longFile = path.join(scratch, `generated-${values.pages}-pages.pdf`);
writeFileSync(longFile, await makeLongPdf(Number(values.pages)));
const files = [
  ...readdirSync(fixtures)
    .filter((f) => f.endsWith('.pdf'))
    .sort()
    .map((f) => path.join(fixtures, f)),
  longFile,
];

console.log(
  `# bench:extract — ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), Node ${process.version}, ${pdftotextVersion()}`,
);
console.log(`one thread; ${values['warm-up']} readings of the warm-up PDF first; warm and bare: median of ${repeat}\n`);
for (let i = 0; i < Number(values['warm-up']); i++) await readWhole(warmUpPdf())();

const rows: string[][] = [];
const sum = { first: 0, warm: 0, bare: 0, pdftotext: 0 };
for (const file of files) {
  const data = new Uint8Array(readFileSync(file));
  const first = await timed(readWhole(data));
  const warm = median(await sequence(repeat, readWhole(data)));
  const bare = median(await sequence(repeat, readBare(data)));
  const pdftotext = timePdftotext(file);
  sum.first += first;
  sum.warm += warm;
  sum.bare += bare;
  sum.pdftotext += pdftotext;
  rows.push([
    path.basename(file),
    ms(first),
    ms(warm),
    ms(bare),
    ms(pdftotext),
    `${(warm / pdftotext).toFixed(1)}x`,
    `${(bare / pdftotext).toFixed(1)}x`,
  ]);
}
rows.push([
  'TOTAL',
  ms(sum.first),
  ms(sum.warm),
  ms(sum.bare),
  ms(sum.pdftotext),
  `${(sum.warm / sum.pdftotext).toFixed(1)}x`,
  `${(sum.bare / sum.pdftotext).toFixed(1)}x`,
]);
console.log(
  table(
    ['file', 'first', 'warm', 'bare pdf.js', 'pdftotext', 'warm/pdftotext', 'bare/pdftotext'],
    rows,
    new Set([1, 2, 3, 4, 5, 6]),
  ),
);
