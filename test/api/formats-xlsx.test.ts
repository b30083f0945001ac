/**
 * XLSX through the jobs API: generated workbooks (exceljs) uploaded as a client would, read back as blocks
 * (a heading and a table per sheet, cells as a grid with its header and column types), chunks (a long sheet
 * by rows, its header in every chunk) and the export; the type is sniffed from the content; a member that
 * inflates past the part limit and a sheet whose grid is too big fail as jobs with their codes.
 */
import { strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { enc, ingest, listAll, startServer } from '../helpers/app.js';
import { failedUpload, finalizedExport } from '../helpers/job-flow.js';
import { makeXlsx, xlsxDiagonal, xlsxZipBomb } from '../helpers/make-office.js';
import { useServer } from '../helpers/use-server.js';

// A small part limit keeps the bomb quick; the default limits are tested in formats-hostile.test.ts.
const server = useServer(() =>
  startServer({ settings: { max_decompressed_part_bytes: 8 * 1024 * 1024, max_sheet_cells: 100_000 } }),
);

const day = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));

const failedJob = (name: string, data: Uint8Array, code: string) => failedUpload(server, name, data, code, 'xlsx');

describe('XLSX', () => {
  it('reads each sheet as a heading and a table block with its header and column types, and exports them', async () => {
    const data = await makeXlsx(
      [
        {
          name: 'Sales',
          rows: [
            ['Region', 'Units', 'Price', 'Shipped', 'Active'],
            ['North', 120, 9.5, day(2024, 3, 1), true],
            ['South', 80, 0.1 + 0.2, day(2024, 3, 15), false],
            [null, null, null, null, null],
            ['East', 7, 12, day(2023, 12, 31), true],
          ],
          formats: { 4: 'yyyy-mm-dd' },
        },
        { name: 'Empty', rows: [] },
        {
          name: 'Codes',
          rows: [
            ['Code', 'Meaning'],
            ['A1', 'first | with a pipe'],
            ['B2', 'second'],
          ],
        },
      ],
      'Quarterly figures',
    );
    // Named .bin: the content, not the name, says what it is.
    const job = await ingest(server, 'figures.bin', data);
    expect(job.format).toBe('xlsx');
    expect(job.title).toBe('Quarterly figures');
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(blocks.map((b) => [b.type, b.type === 'heading' ? b.text : b.table.rows.length])).toEqual([
      ['heading', 'Sales'],
      ['table', 4],
      ['heading', 'Codes'],
      ['table', 3],
    ]);
    const sales = blocks[1]!;
    expect(sales.table).toEqual({
      rows: [
        ['Region', 'Units', 'Price', 'Shipped', 'Active'],
        ['North', '120', '9.5', '2024-03-01', 'TRUE'],
        ['South', '80', '0.3', '2024-03-15', 'FALSE'],
        ['East', '7', '12', '2023-12-31', 'TRUE'],
      ],
      header_rows: 1,
      column_types: ['string', 'integer', 'number', 'date', 'boolean'],
    });
    expect(sales.text.split('\n').slice(0, 3)).toEqual([
      '| Region | Units | Price | Shipped | Active |',
      '| --- | --- | --- | --- | --- |',
      '| North | 120 | 9.5 | 2024-03-01 | TRUE |',
    ]);
    expect(sales.hierarchy_path).toEqual(['Sales']);
    expect(blocks[3]!.table.rows[1]).toEqual(['A1', 'first | with a pipe']);
    expect(blocks.every((b) => b.page === 1 && b.bbox === null)).toBe(true);

    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks.filter((c) => c.chunk_type === 'table').map((c) => c.section_path)).toEqual([['Sales'], ['Codes']]);

    const files = await finalizedExport(server, job.job_id);
    expect(Buffer.from(files['original-figures.bin']!).equals(Buffer.from(data))).toBe(true);
    const exported = JSON.parse(strFromU8(files['blocks.json']!)) as Array<Record<string, any>>;
    expect(exported.find((b) => b.block_id === sales.block_id)?.table).toEqual(sales.table);
    expect(JSON.parse(strFromU8(files['manifest.json']!)).source.format).toBe('xlsx');
    expect(strFromU8(files['document.md']!)).toContain('| East | 7 | 12 | 2023-12-31 | TRUE |');
  });

  it('chunks a long sheet by rows, repeating its header row in every chunk', async () => {
    const rows: (string | number)[][] = [['Item', 'Description', 'Quantity']];
    for (let i = 1; i <= 300; i++) rows.push([`item-${i}`, `the ${i}th thing on the list of things`, i * 3]);
    const job = await ingest(server, 'long.xlsx', await makeXlsx([{ name: 'Stock', rows }]), {
      chunk_size: '128',
      chunk_overlap: '0',
    });
    const [table] = (await listAll(server, `/jobs/${job.job_id}/blocks`)).filter((b) => b.type === 'table');
    expect(table!.table.rows).toHaveLength(301);
    const chunks = (await listAll(server, `/jobs/${job.job_id}/chunks`)).filter((c) =>
      c.block_ids.includes(table!.block_id),
    );
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) {
      const lines = c.text.split('\n').filter((l: string) => l.startsWith('|'));
      expect(lines.slice(0, 2)).toEqual(['| Item | Description | Quantity |', '| --- | --- | --- |']);
      expect(lines.length).toBeGreaterThan(2);
    }
    // Every row is in exactly one chunk, in order.
    const dataRows = chunks.flatMap((c) => c.text.split('\n').filter((l: string) => l.startsWith('| item-')));
    expect(dataRows).toHaveLength(300);
    expect(dataRows[0]).toBe('| item-1 | the 1th thing on the list of things | 3 |');
    expect(dataRows.at(-1)).toBe('| item-300 | the 300th thing on the list of things | 900 |');
  });

  it('takes a text file named .xlsx for text: the name is not trusted', async () => {
    const job = await ingest(server, 'fake.xlsx', enc('Just a note, not a spreadsheet.'));
    expect(job.format).toBe('text');
  });

  it('fails a sheet that inflates past max_decompressed_part_bytes with DECOMPRESSED_TOO_LARGE', async () => {
    const job = await failedJob('bomb.xlsx', xlsxZipBomb(64), 'DECOMPRESSED_TOO_LARGE');
    expect(job.error.message).toMatch(/xl\/worksheets\/sheet1\.xml/);
  });

  it('fails a sheet whose grid has more cells than max_sheet_cells with TOO_MANY_CELLS', async () => {
    // 400 values on the diagonal make a 400 x 400 grid.
    const job = await failedJob('diagonal.xlsx', xlsxDiagonal(400), 'TOO_MANY_CELLS');
    expect(job.error.message).toMatch(/max_sheet_cells/);
  });
});
