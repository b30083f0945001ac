/**
 * CSV through the jobs API: encodings (UTF-8 with and without a BOM, UTF-16 with one, windows-1252),
 * delimiters found from the rows (comma, semicolon, tab), quoted fields holding delimiters, quotes and line
 * breaks; one table block with its header and column types; chunks by rows with the header repeated; the
 * export; CSV told from prose by content; and a CSV of more rows than max_sheet_rows failing as a job.
 */
import { strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { enc, ingest, listAll, startServer } from '../helpers/app.js';
import { failedUpload, finalizedExport } from '../helpers/job-flow.js';
import { bigCsv, csvOpenQuote } from '../helpers/make-office.js';
import { useServer } from '../helpers/use-server.js';

const server = useServer(() => startServer({ settings: { max_sheet_rows: 5000 } }));

async function tableOf(name: string, data: Uint8Array) {
  const job = await ingest(server, name, data);
  expect(job.format).toBe('csv');
  const blocks = await listAll(server, `/jobs/${job.job_id}/blocks`);
  expect(blocks.map((b) => b.type)).toEqual(['table']);
  return { job, block: blocks[0]! };
}

const utf16le = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);

describe('CSV', () => {
  it('reads a comma CSV with a BOM, quoted delimiters, quotes and line breaks into one typed table', async () => {
    const csv =
      '\ufeffName,Age,Joined,Note,Member\r\nAda,36,2024-01-05,"Loves ""engines"", math",true\r\nBob,41.5,2023-11-30,"Line one\r\nLine two",false\r\nÉmile,007,2022-02-02,,TRUE\r\n';
    const { block } = await tableOf('people.csv', enc(csv));
    expect(block.table).toEqual({
      rows: [
        ['Name', 'Age', 'Joined', 'Note', 'Member'],
        ['Ada', '36', '2024-01-05', 'Loves "engines", math', 'true'],
        ['Bob', '41.5', '2023-11-30', 'Line one\r\nLine two', 'false'],
        ['Émile', '007', '2022-02-02', '', 'TRUE'],
      ],
      header_rows: 1,
      // "007" keeps its zeros as text, which makes the column text.
      column_types: ['string', 'string', 'date', 'string', 'boolean'],
    });
    // The Markdown text keeps each row on one line.
    expect(block.text.split('\n')).toHaveLength(5);
    expect(block.text).toContain('| Bob | 41.5 | 2023-11-30 | Line one Line two | false |');
  });

  it.each([
    [
      'semicolons with decimal commas, UTF-8 without a BOM',
      'prices.csv',
      enc('Produkt;Preis;Menge\nKäse;3,50;2\nBrot;2,25;1\nÄpfel;0,99;6\n'),
      ';',
    ],
    [
      'tabs, UTF-16 with a BOM, named .txt',
      'prices.txt',
      utf16le('Produkt\tPreis\tMenge\nKäse\t3.50\t2\nBrot\t2.25\t1\nÄpfel\t0.99\t6\n'),
      '\t',
    ],
    [
      'semicolons in windows-1252',
      'prices.csv',
      Buffer.from('Produkt;Preis;Menge\nK\xe4se;3,50;2\nBrot;2,25;1\n\xc4pfel;0,99;6\n', 'latin1'),
      ';',
    ],
  ])('finds the delimiter: %s', async (_name, file, data, delimiter) => {
    const { block } = await tableOf(file, data);
    expect(block.table.rows.map((r: string[]) => r[0])).toEqual(['Produkt', 'Käse', 'Brot', 'Äpfel']);
    expect(block.table.rows[1][1]).toBe(delimiter === ';' ? '3,50' : '3.50');
    expect(block.table.header_rows).toBe(1);
    expect(block.table.column_types).toEqual(['string', 'number', 'integer']);
  });

  it('chunks a long CSV by rows with its header in every chunk, and exports the table', async () => {
    const data = bigCsv(400);
    const job = await ingest(server, 'items.csv', data, { chunk_size: '96', chunk_overlap: '0' });
    expect(job.format).toBe('csv');
    const [block] = await listAll(server, `/jobs/${job.job_id}/blocks`);
    expect(block!.table.rows).toHaveLength(401);
    expect(block!.table.column_types).toEqual(['integer', 'string', 'number']);
    const chunks = await listAll(server, `/jobs/${job.job_id}/chunks`);
    expect(chunks.length).toBeGreaterThan(10);
    // The first piece of a split table is its `table` chunk, the rest `continuation`s of it.
    expect(chunks.map((c) => c.chunk_type)).toEqual(['table', ...new Array(chunks.length - 1).fill('continuation')]);
    for (const c of chunks) {
      expect(c.text.split('\n').slice(0, 2)).toEqual(['| id | name | amount |', '| --- | --- | --- |']);
    }
    const rows = chunks.flatMap((c) => c.text.split('\n').slice(2));
    expect(rows).toHaveLength(400);
    expect(rows[399]).toBe('| 399 | item 399 | 39.9 |');

    const files = await finalizedExport(server, job.job_id);
    const exported = JSON.parse(strFromU8(files['chunks.json']!)) as Array<{ text: string }>;
    expect(exported.map((c) => c.text)).toEqual(chunks.map((c) => c.text));
    expect(strFromU8(files['document.md']!)).toContain('| 0 | item 0 | 0 |');
  });

  it('leaves prose with commas as text, and a named CSV of one column as CSV', async () => {
    const prose = 'Dear team, thanks for coming.\nThe meeting ran long, as usual.\nSee you soon, and bring snacks.\n';
    expect((await ingest(server, 'letter.txt', enc(prose))).format).toBe('text');
    const { block } = await tableOf('names.csv', enc('name\nAda\nBob\n'));
    expect(block.table.rows).toEqual([['name'], ['Ada'], ['Bob']]);
  });

  it('fails a CSV of more rows than max_sheet_rows with TOO_MANY_ROWS, and keeps serving', async () => {
    const job = await failedUpload(server, 'huge.csv', bigCsv(1_000_000), 'TOO_MANY_ROWS');
    expect(job.error.message).toMatch(/more than 5000 rows \(setting max_sheet_rows\)/);
    expect((await ingest(server, 'after.csv', enc('a,b\n1,2\n'))).status).toBe('ready_for_review');
  });

  it('fails a record of more fields than max_sheet_cells with TOO_MANY_CELLS before building its row', async () => {
    const line = new Array(1_500_000).fill('x').join(',');
    const wide = `${line}\n${line}\n`;
    await failedUpload(server, 'wide.csv', enc(wide), 'TOO_MANY_CELLS');
  });

  it('fails a quote that never closes with CSV_INVALID instead of reading the rest as one field', async () => {
    const job = await failedUpload(server, 'open.csv', csvOpenQuote(20), 'CSV_INVALID');
    expect(job.error).toMatchObject({ code: 'CSV_INVALID', message: expect.stringMatching(/never closes/) });
  });
});
