/**
 * Hostile spreadsheets, slides and CSV against the real server in a process of its own at the default
 * limits, as hostile-files.test.ts does for PDF, DOCX and images: each, alone and two at once, ends as a
 * failed job with its code while the process stays under 1.5 GB resident and /health keeps answering.
 */
import { describeHostile, type HostileCase } from '../helpers/hostile-run.js';
import { bigCsv, csvOpenQuote, pptxZipBomb, xlsxDiagonal, xlsxZipBomb } from '../helpers/make-office.js';

const CASES: HostileCase[] = [
  {
    name: 'an XLSX whose sheet inflates to 450 MB',
    file: 'bomb.xlsx',
    make: () => xlsxZipBomb(450),
    code: 'DECOMPRESSED_TOO_LARGE',
    message: /xl\/worksheets\/sheet1\.xml/,
  },
  {
    name: 'a PPTX whose slide inflates to 450 MB',
    file: 'bomb.pptx',
    make: () => pptxZipBomb(450),
    code: 'DECOMPRESSED_TOO_LARGE',
    message: /ppt\/slides\/slide1\.xml/,
  },
  {
    name: 'a CSV of 1,000,000 rows (21 MB)',
    file: 'huge.csv',
    make: () => bigCsv(1_000_000),
    code: 'TOO_MANY_ROWS',
    message: /max_sheet_rows/,
  },
  {
    name: 'a CSV whose quote never closes (50 MB)',
    file: 'quote.csv',
    make: () => csvOpenQuote(50),
    code: 'CSV_INVALID',
    message: /never closes/,
  },
  {
    name: 'an XLSX with 3,000 values on a diagonal (9,000,000 cells)',
    file: 'diagonal.xlsx',
    make: () => xlsxDiagonal(3000),
    code: 'TOO_MANY_CELLS',
    message: /max_sheet_cells/,
  },
];

describeHostile('hostile spreadsheets, slides and CSV', CASES, {
  name: 'leaves the same server reading spreadsheets',
  file: 'after.csv',
  text: 'a,b\n1,2\n',
});
