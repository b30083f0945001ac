import { readFileSync } from 'node:fs';
import { openPdf } from './server/core/extract/pdf/pdfjs-loader.js';
import { renderOpenPdfPageGrey } from './server/core/ocr/render-page.js';
import { toPgm } from './server/core/ocr/raster.js';
import { getOcrEngine, terminateOcrEngines } from './server/core/ocr/tesseract.js';
const engine = await getOcrEngine('eng');
for (const f of ['scan02-booktabs-p2.pdf', 'scan05-beamer-slide4.pdf']) {
  const { doc } = await openPdf(new Uint8Array(readFileSync('../shared/fixtures/scanned/' + f)));
  const r = await renderOpenPdfPageGrey(doc, 1, { dpi: 300 });
  const pgm = toPgm(r.grey!);
  const opts = { user_defined_dpi: '300' } as any;
  const run = async (out: any) => { const c = process.cpuUsage(); const t = performance.now(); const res = await engine.worker.recognize(pgm, opts, out); return { ms: performance.now() - t, res }; };
  await run({ blocks: true, text: false, hocr: false, tsv: false });
  for (let i = 0; i < 3; i++) {
    const a = await run({ blocks: true, text: false, hocr: false, tsv: false });
    const b = await run({ blocks: false, text: false, hocr: false, tsv: true });
    const c = await run({ blocks: false, text: true, hocr: false, tsv: false });
    console.log(f, 'blocks', a.ms.toFixed(0), 'tsv', b.ms.toFixed(0), 'text', c.ms.toFixed(0));
    if (i === 0) console.log(String(b.res.data.tsv).split('\n').slice(0, 8).join('\n'));
  }
}
await terminateOcrEngines();
