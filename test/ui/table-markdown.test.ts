import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTableMarkdown, tableMarkdown } from '../../server/core/extract/table-markdown.js';
import { gridMarkdown, modelFromMarkdown } from '../../renderer/src/review/table-grid.js';
import { fixturesDir, ingest, listAll, startServer, type TestServer } from '../helpers/app.js';
import { makeStructuredPdf } from '../helpers/make-pdf.js';

// The desk's grid editor reads a table block's Markdown into cells and writes it back with the server's
// own writer: for every table the extractors make from real documents, an untouched grid gives back the
// very same text (so opening and saving a table changes nothing), and cells with pipes and backslashes
// survive the trip.

let server: TestServer;
const tables: { id: string; text: string }[] = [];

beforeAll(async () => {
  server = await startServer();
  const docs: [string, Uint8Array][] = [
    ['structured.pdf', await makeStructuredPdf()],
    ...['booktabs-manual.pdf', 'zoo-jss-paper.pdf', 'survival-tiedtimes.pdf'].map((f): [string, Uint8Array] => [
      f,
      readFileSync(join(fixturesDir, 'pdfs', f)),
    ]),
  ];
  for (const [name, data] of docs) {
    const job = await ingest(server, name, data);
    const blocks = await listAll(server, `/jobs/${job.job_id}/blocks?type=table`);
    tables.push(...blocks.map((b) => ({ id: `${name} ${b.block_id}`, text: b.text as string })));
  }
}, 600_000);
afterAll(async () => {
  await server?.close();
});

describe('table Markdown, written and read back', () => {
  it("gives back every extracted table's text unchanged from its grid", () => {
    expect(tables.length).toBeGreaterThanOrEqual(5);
    for (const t of tables) {
      const model = modelFromMarkdown(t.text);
      expect(model, t.id).not.toBeNull();
      expect(gridMarkdown(model!), t.id).toBe(t.text);
    }
  });

  it('keeps pipes, backslashes and empty cells, and an empty head stays the placeholder head', () => {
    const grid = {
      rows: [
        ['a|b', 'c\\d', ''],
        ['', 'x\\|y', 'end\\'],
      ],
      header_rows: 0,
    };
    const text = tableMarkdown(grid);
    expect(text.split('\n')[0]).toBe('| | | |');
    expect(parseTableMarkdown(text)).toEqual(grid);
    expect(gridMarkdown(modelFromMarkdown(text)!)).toBe(text);
  });

  it('reads no table out of text that is not one', () => {
    for (const text of ['Just a paragraph.', '| a | b |', '| a | b |\nnot a separator', 'a | b\n--- | ---'])
      expect(modelFromMarkdown(text), text).toBeNull();
  });
});
