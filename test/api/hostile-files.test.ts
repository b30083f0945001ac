/**
 * Hostile documents against the real server in a process of its own (`lectern serve`, default limits):
 * each one, alone and two at once, must end as a failed job with its code while the whole process (HTTP
 * thread and worker threads) stays under 1.5 GB resident and /health keeps answering. The files are
 * generated here, small (test/helpers/hostile-files.ts). The text-operator PDF, which takes longer, has a
 * file of its own (hostile-operators.test.ts).
 */
import { docxZipBomb, pdfManyPages, pdfPageTreeLoop, pdfZlibBomb, pngPixelBomb } from '../helpers/hostile-files.js';
import { describeHostile, type HostileCase } from '../helpers/hostile-run.js';

const CASES: HostileCase[] = [
  {
    name: 'a 1.1 MB PDF whose stream inflates to 1.1 GB',
    file: 'bomb.pdf',
    make: () => pdfZlibBomb(1100),
    code: 'DECOMPRESSED_TOO_LARGE',
  },
  {
    name: 'a DOCX whose XML inflates to 450 MB',
    file: 'bomb.docx',
    make: () => docxZipBomb(450),
    code: 'DECOMPRESSED_TOO_LARGE',
    message: /word\/document\.xml/,
  },
  {
    name: 'a PNG of 20000 x 20000 pixels',
    file: 'wide.png',
    make: () => pngPixelBomb(20_000, 20_000, 8),
    code: 'IMAGE_TOO_LARGE',
  },
  {
    name: 'a PNG of 60000 x 60000 pixels',
    file: 'huge.png',
    make: () => pngPixelBomb(60_000, 60_000, 1),
    code: 'IMAGE_TOO_LARGE',
  },
  { name: 'a PDF of 100,000 pages', file: 'pages.pdf', make: () => pdfManyPages(100_000), code: 'TOO_MANY_PAGES' },
  {
    name: 'a PDF whose page tree loops',
    file: 'loop.pdf',
    make: () => pdfPageTreeLoop(),
    code: 'PDF_INVALID',
    message: /page tree loops/,
  },
];

describeHostile('hostile documents', CASES, {
  name: 'leaves the same server reading documents',
  file: 'after.md',
  text: '# After the storm\n\nStill reading.',
});
