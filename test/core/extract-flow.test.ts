import { describe, expect, it } from 'vitest';
import {
  decodeText,
  extractDocx,
  extractHtml,
  extractMarkdown,
  extractText,
} from '../../server/core/extract/flow/index.js';
import type { ExtractedBlock, ExtractionResult } from '../../server/core/extract/types.js';
import { makeDocx, makeZip } from '../helpers/make-docx.js';

/** [type, text] pairs: the compact shape most assertions compare against. */
function outline(result: ExtractionResult): Array<[string, string]> {
  return result.blocks.map((b) => [b.type, b.text]);
}

function only(result: ExtractionResult, type: ExtractedBlock['type']): ExtractedBlock[] {
  return result.blocks.filter((b) => b.type === type);
}

function expectFlowEnvelope(result: ExtractionResult, format: ExtractionResult['format']): void {
  expect(result.format).toBe(format);
  expect(result.total_pages).toBe(1);
  expect(result.pages).toEqual([{ page: 1, width: 0, height: 0, needs_ocr: false }]);
  for (const block of result.blocks) {
    expect(block.page).toBe(1);
    expect(block.bbox).toBeNull();
  }
  // The result crosses the worker boundary by structured clone: plain data only.
  expect(structuredClone(result)).toEqual(result);
}

describe('extractHtml', () => {
  const page = `<!DOCTYPE html>
<html><head><title>Quarterly &amp; Annual Report</title>
  <style>p { color: red }</style><script>document.write('<p>injected</p>')</script></head>
<body>
  <header><nav><ul><li><a href="/">Home</a></li><li>Contact</li></ul></nav></header>
  <main>
    <h1>Results   Overview</h1>
    <p>Revenue   grew&nbsp;by <b>12&nbsp;%</b> &mdash; see
       below.</p>
    <h2>Steps</h2>
    <ol start="3">
      <li>Collect data
        <ul><li>from sales</li><li><p>from support</p><p>and ops</p></li></ul>
      </li>
      <li>Report</li>
    </ol>
    <h3>Numbers</h3>
    <table>
      <caption>Table 1: Sales by region</caption>
      <thead><tr><th colspan="2">Region | Zone</th><th>Q1</th></tr></thead>
      <tbody>
        <tr><td rowspan="2">North</td><td>A</td><td>10</td></tr>
        <tr><td>B</td><td>20</td></tr>
        <tr><td>South</td></tr>
      </tbody>
    </table>
    <pre><code class="language-python">def total(xs):
    return sum(xs)
</code></pre>
    <figure><img src="chart.png" alt="Bar chart of sales"><figcaption>Figure 1: Sales</figcaption></figure>
    <math display="block"><semantics><mrow><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></mrow>
      <annotation encoding="application/x-tex">E = mc^2</annotation></semantics></math>
    <p>Inline <span class="math inline">\\(a+b\\)</span> stays in the sentence.</p>
    <blockquote><p>Quoted words.</p></blockquote>
    <template><p>template text</p></template><noscript>enable js</noscript>
  </main>
  <footer><p>&copy; 2024 ACME</p></footer>
</body></html>`;

  it('returns every block in document order with the flow-format envelope', () => {
    const result = extractHtml(page);
    expectFlowEnvelope(result, 'html');
    expect(result.title).toBe('Quarterly & Annual Report');
    expect(result.warnings).toEqual([]);
    expect(outline(result)).toEqual([
      ['header', 'Home\nContact'],
      ['heading', 'Results Overview'],
      ['paragraph', 'Revenue grew by 12 % — see below.'],
      ['heading', 'Steps'],
      ['list_item', '3. Collect data'],
      ['list_item', 'from sales'],
      ['list_item', 'from support\nand ops'],
      ['list_item', '4. Report'],
      ['heading', 'Numbers'],
      ['caption', 'Table 1: Sales by region'],
      ['table', expect.any(String) as unknown as string],
      ['code', 'def total(xs):\n    return sum(xs)'],
      ['figure', 'Bar chart of sales'],
      ['caption', 'Figure 1: Sales'],
      ['equation', 'E = mc^2'],
      ['paragraph', 'Inline a+b stays in the sentence.'],
      ['paragraph', 'Quoted words.'],
      ['footer', '© 2024 ACME'],
    ]);
  });

  it('keeps heading levels and list nesting depth', () => {
    const result = extractHtml(page);
    expect(only(result, 'heading').map((b) => b.heading_level)).toEqual([1, 2, 3]);
    expect(only(result, 'list_item').map((b) => b.indent_level)).toEqual([0, 1, 1, 0]);
    expect(only(result, 'code')[0]?.language).toBe('python');
  });

  it('turns a table into a rectangular grid with spans expanded and a Markdown rendering', () => {
    const table = only(extractHtml(page), 'table')[0];
    expect(table?.table).toEqual({
      rows: [
        ['Region | Zone', '', 'Q1'],
        ['North', 'A', '10'],
        ['', 'B', '20'],
        ['South', '', ''],
      ],
      header_rows: 1,
    });
    expect(table?.text).toBe(
      [
        '| Region \\| Zone |  | Q1 |',
        '| --- | --- | --- |',
        '| North | A | 10 |',
        '|  | B | 20 |',
        '| South |  |  |',
      ].join('\n'),
    );
  });

  it('counts leading <th> rows as header rows and renders headerless tables as valid GFM', () => {
    const withTh = extractHtml('<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>');
    expect(only(withTh, 'table')[0]?.table?.header_rows).toBe(1);
    const plain = only(extractHtml('<table><tr><td>a</td><td>1</td></tr><tr><td>b</td></tr></table>'), 'table')[0];
    expect(plain?.table).toEqual({
      rows: [
        ['a', '1'],
        ['b', ''],
      ],
      header_rows: 0,
    });
    expect(plain?.text).toBe('|  |  |\n| --- | --- |\n| a | 1 |\n| b |  |');
  });

  it('falls back to the first h1 for the title and ignores invisible content', () => {
    const result = extractHtml(
      '<h2>Sub</h2><h1>Main</h1><p hidden>secret</p><p style="display: none">gone</p><script>x()</script><p>Shown</p>',
    );
    expect(result.title).toBe('Main');
    expect(outline(result)).toEqual([
      ['heading', 'Sub'],
      ['heading', 'Main'],
      ['paragraph', 'Shown'],
    ]);
  });

  it('splits loose text around block elements and keeps <br> line breaks', () => {
    expect(outline(extractHtml('<body>Before <div>inside</div> after<br>next line</body>'))).toEqual([
      ['paragraph', 'Before'],
      ['paragraph', 'inside'],
      ['paragraph', 'after\nnext line'],
    ]);
  });

  it('uses ol type/value for the kept item numbers and drops bullets', () => {
    const result = extractHtml(
      '<ol type="a"><li>x</li><li value="5">y</li></ol><ol type="I" start="4"><li>z</li></ol><ul><li>dot</li></ul>',
    );
    expect(only(result, 'list_item').map((b) => b.text)).toEqual(['a. x', 'e. y', 'IV. z', 'dot']);
  });

  it('makes figures of standalone images and inline text of icons inside sentences', () => {
    const result = extractHtml(
      '<p><img src="a.png" alt="Diagram"></p><p>Press <img src="i.png" alt="save"> now.</p><p><img src="s.gif" alt=""></p><figure><img src="x.png"><figcaption>Only caption</figcaption></figure>',
    );
    expect(outline(result)).toEqual([
      ['figure', 'Diagram'],
      ['paragraph', 'Press save now.'],
      ['figure', 'Only caption'],
      ['caption', 'Only caption'],
    ]);
  });

  it('reads display math as equations and KaTeX output once', () => {
    const katex =
      '<p><span class="katex-display"><span class="katex"><span class="katex-mathml"><math display="block"><semantics><mi>x</mi>' +
      '<annotation encoding="application/x-tex">\\sqrt{x}</annotation></semantics></math></span>' +
      '<span class="katex-html" aria-hidden="true">√x</span></span></span></p>';
    expect(outline(extractHtml(katex))).toEqual([['equation', '\\sqrt{x}']]);
    expect(outline(extractHtml('<div class="math">$$a^2$$</div>'))).toEqual([['equation', 'a^2']]);
  });

  it('survives absurd nesting and keeps content a page leaves inside an unclosed <head>', () => {
    const deep = `${'<div>'.repeat(20000)}deep text${'</div>'.repeat(20000)}<p>after</p>`;
    expect(outline(extractHtml(deep))).toEqual([
      ['paragraph', 'deep text'],
      ['paragraph', 'after'],
    ]);
    expect(outline(extractHtml('<html><head><meta charset="utf-8"><title>T</title><p>Hello'))).toEqual([
      ['paragraph', 'Hello'],
    ]);
  });

  it('keeps header and footer inside an article as content', () => {
    const result = extractHtml(
      '<article><header><h1>Post</h1></header><p>Body</p><footer><p>By Ann</p></footer></article>',
    );
    expect(outline(result)).toEqual([
      ['heading', 'Post'],
      ['paragraph', 'Body'],
      ['paragraph', 'By Ann'],
    ]);
  });
});

describe('extractMarkdown', () => {
  const md = [
    '---',
    'title: "Front Title"',
    'tags: [a, b]',
    '---',
    '# Guide &amp; *Intro*',
    '',
    'Some **bold** text with a [link](http://example.com)',
    'wrapped onto a second line.',
    '',
    '![Architecture diagram](arch.png)',
    '',
    '- [x] done item',
    '- open item',
    '  - nested *one*',
    '    1. deeper',
    '',
    '3. third',
    '4. fourth',
    '',
    '## Data',
    '',
    '| Name | Value \\| unit |',
    '| --- | ---: |',
    '| a | 1 |',
    '| b |',
    '',
    '```ts title="x"',
    'const x = 1;',
    '```',
    '',
    '$$',
    'E = mc^2',
    '$$',
    '',
    '> Quoted',
    '> text.',
    '',
    '<div><p>Raw html block</p></div>',
    '',
  ].join('\n');

  it('maps tokens to blocks in order and skips the front matter', () => {
    const result = extractMarkdown(md);
    expectFlowEnvelope(result, 'markdown');
    expect(result.title).toBe('Front Title');
    expect(outline(result)).toEqual([
      ['heading', 'Guide & Intro'],
      ['paragraph', 'Some bold text with a link wrapped onto a second line.'],
      ['figure', 'Architecture diagram'],
      ['list_item', '[x] done item'],
      ['list_item', 'open item'],
      ['list_item', 'nested one'],
      ['list_item', '1. deeper'],
      ['list_item', '3. third'],
      ['list_item', '4. fourth'],
      ['heading', 'Data'],
      ['table', '| Name | Value \\| unit |\n| --- | --- |\n| a | 1 |\n| b |  |'],
      ['code', 'const x = 1;'],
      ['equation', 'E = mc^2'],
      ['paragraph', 'Quoted text.'],
      ['paragraph', 'Raw html block'],
    ]);
  });

  it('keeps heading depth, list nesting, table grid and code language', () => {
    const result = extractMarkdown(md);
    expect(only(result, 'heading').map((b) => b.heading_level)).toEqual([1, 2]);
    expect(only(result, 'list_item').map((b) => b.indent_level)).toEqual([0, 0, 1, 2, 0, 0]);
    expect(only(result, 'table')[0]?.table).toEqual({
      rows: [
        ['Name', 'Value | unit'],
        ['a', '1'],
        ['b', ''],
      ],
      header_rows: 1,
    });
    expect(only(result, 'code')[0]?.language).toBe('ts');
  });

  it('uses the first h1 as title without front matter, and ```math fences are equations', () => {
    const result = extractMarkdown('Intro\n\n# Real Title\n\n```math\n\\int_0^1 x\\,dx\n```\n\n    indented code\n');
    expect(result.title).toBe('Real Title');
    expect(outline(result)).toEqual([
      ['paragraph', 'Intro'],
      ['heading', 'Real Title'],
      ['equation', '\\int_0^1 x\\,dx'],
      ['code', 'indented code'],
    ]);
    expect(only(result, 'code')[0]?.language).toBeUndefined();
  });

  it('reads absurdly nested Markdown as plain text, with a warning, instead of failing', () => {
    const result = extractMarkdown(`${'>'.repeat(20000)} deep quote\n`);
    expect(result.warnings).toEqual(['Markdown nesting too deep to parse; the document was read as plain text']);
    expect(result.blocks.map((b) => b.text).join(' ')).toContain('deep quote');
  });

  it('does not take a leading horizontal rule followed by prose for front matter', () => {
    const result = extractMarkdown('---\nJust a sentence.\n\n---\n\nMore.\n');
    expect(outline(result).map(([, text]) => text)).toContain('Just a sentence.');
  });
});

describe('extractText', () => {
  const text = [
    'PROJECT REPORT',
    '',
    'Summary',
    '=======',
    '',
    'This paragraph is hard',
    'wrapped over two lines.',
    '',
    'Shopping list:',
    '- milk',
    '- eggs',
    '    * brown',
    '1. First step',
    '2) Second step',
    '',
    'Details',
    '-------',
    '',
    '    def f():',
    '        return 1',
    '',
    '    print(f())',
    '',
    'The end.',
  ].join('\n');

  it('finds headings, paragraphs, list items and code', () => {
    const result = extractText(text);
    expectFlowEnvelope(result, 'text');
    expect(result.title).toBe('PROJECT REPORT');
    expect(outline(result)).toEqual([
      ['heading', 'PROJECT REPORT'],
      ['heading', 'Summary'],
      ['paragraph', 'This paragraph is hard wrapped over two lines.'],
      ['paragraph', 'Shopping list:'],
      ['list_item', 'milk'],
      ['list_item', 'eggs'],
      ['list_item', 'brown'],
      ['list_item', '1. First step'],
      ['list_item', '2) Second step'],
      ['heading', 'Details'],
      ['code', 'def f():\n    return 1\n\nprint(f())'],
      ['paragraph', 'The end.'],
    ]);
    expect(only(result, 'heading').map((b) => b.heading_level)).toEqual([1, 1, 2]);
    expect(only(result, 'list_item').map((b) => b.indent_level)).toEqual([0, 0, 1, 0, 0]);
  });

  it('does not make headings of shouted sentences, lowercase lines or indented code', () => {
    expect(outline(extractText('DO NOT TOUCH.\n\nnormal line\n\n    MAX_SIZE = 10\n'))).toEqual([
      ['paragraph', 'DO NOT TOUCH.'],
      ['paragraph', 'normal line'],
      ['code', 'MAX_SIZE = 10'],
    ]);
  });

  it('handles CRLF line ends and form feeds', () => {
    expect(outline(extractText('one\r\ntwo\r\n\r\nthree\fFOUR'))).toEqual([
      ['paragraph', 'one two'],
      ['paragraph', 'three'],
      ['heading', 'FOUR'],
    ]);
  });
});

describe('extractDocx', () => {
  const omml =
    '<m:oMath><m:f><m:num><m:r><m:t>a</m:t></m:r></m:num><m:den><m:r><m:t>b</m:t></m:r></m:den></m:f>' +
    '<m:r><m:t>=</m:t></m:r><m:sSup><m:e><m:r><m:t>x</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath>';
  const docx = makeDocx([
    { kind: 'title', text: 'Annual Plan' },
    { kind: 'heading', level: 1, text: 'Goals' },
    { kind: 'para', text: 'We aim high & stay <safe>.' },
    { kind: 'bullet', text: 'Grow revenue' },
    { kind: 'bullet', text: 'In Europe', level: 1 },
    { kind: 'bullet', text: 'Cut costs' },
    { kind: 'numbered', text: 'Plan' },
    { kind: 'numbered', text: 'Execute' },
    { kind: 'heading', level: 2, text: 'Budget' },
    {
      kind: 'table',
      rows: [
        ['Item', 'Cost'],
        ['Ads', '100'],
        ['Staff | temp', '200'],
      ],
      headerRows: 1,
    },
    { kind: 'para', text: 'SELECT *', style: 'Code' },
    { kind: 'para', text: '  FROM plans;', style: 'Code' },
    { kind: 'image', alt: 'Org chart' },
    { kind: 'para', text: 'Figure 1: Organisation', style: 'Caption' },
    { kind: 'raw', xml: `<w:p>${omml}</w:p>` },
    {
      kind: 'raw',
      xml: '<w:p><w:r><w:t xml:space="preserve">Let </w:t></w:r><m:oMath><m:r><m:t>y</m:t></m:r></m:oMath><w:r><w:t xml:space="preserve"> be small.</w:t></w:r></w:p>',
    },
  ]);

  it('extracts headings, lists, tables, code, figures and equations in order', async () => {
    const result = await extractDocx(docx);
    expectFlowEnvelope(result, 'docx');
    expect(result.title).toBe('Annual Plan');
    expect(outline(result)).toEqual([
      ['heading', 'Annual Plan'],
      ['heading', 'Goals'],
      ['paragraph', 'We aim high & stay <safe>.'],
      ['list_item', 'Grow revenue'],
      ['list_item', 'In Europe'],
      ['list_item', 'Cut costs'],
      ['list_item', '1. Plan'],
      ['list_item', '2. Execute'],
      ['heading', 'Budget'],
      ['table', '| Item | Cost |\n| --- | --- |\n| Ads | 100 |\n| Staff \\| temp | 200 |'],
      ['code', 'SELECT *\n  FROM plans;'],
      ['figure', 'Org chart'],
      ['caption', 'Figure 1: Organisation'],
      ['equation', '\\frac{a}{b}={x}^{2}'],
      ['paragraph', 'Let y be small.'],
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('keeps heading levels, list indent levels and the table grid', async () => {
    const result = await extractDocx(docx);
    expect(only(result, 'heading').map((b) => b.heading_level)).toEqual([1, 1, 2]);
    expect(only(result, 'list_item').map((b) => b.indent_level)).toEqual([0, 1, 0, 0, 0]);
    expect(only(result, 'table')[0]?.table).toEqual({
      rows: [
        ['Item', 'Cost'],
        ['Ads', '100'],
        ['Staff | temp', '200'],
      ],
      header_rows: 1,
    });
  });

  it('passes mammoth messages on as warnings', async () => {
    const result = await extractDocx(
      makeDocx([
        { kind: 'raw', xml: '<w:p><w:pPr><w:pStyle w:val="Fancy"/></w:pPr><w:r><w:t>styled</w:t></w:r></w:p>' },
      ]),
    );
    expect(outline(result)).toEqual([['paragraph', 'styled']]);
    expect(result.warnings.length).toBeGreaterThan(0);
    expect(result.warnings.some((w) => /^DOCX: Unrecognised paragraph style.*Fancy/.test(w))).toBe(true);
  });

  it.each([
    ['random bytes', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])],
    ['an empty file', new Uint8Array(0)],
    ['a zip without word/document.xml', makeZip([{ name: 'hello.txt', data: 'hi' }])],
    ['a truncated docx', docx.subarray(0, 300)],
  ])('rejects %s with DOCX_INVALID', async (_name, data) => {
    const error: unknown = await extractDocx(data).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toBe('DOCX_INVALID');
    expect((error as Error).message).toMatch(/^Not a readable DOCX file/);
  });
});

describe('decodeText', () => {
  const utf16 = (text: string, endian: 'le' | 'be', bom: boolean): Uint8Array => {
    const bytes: number[] = bom ? (endian === 'le' ? [0xff, 0xfe] : [0xfe, 0xff]) : [];
    for (const unit of Array.from({ length: text.length }, (_, i) => text.charCodeAt(i))) {
      const hi = unit >> 8;
      const lo = unit & 0xff;
      bytes.push(...(endian === 'le' ? [lo, hi] : [hi, lo]));
    }
    return new Uint8Array(bytes);
  };

  it('decodes UTF-8 and strips its BOM', () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('Grüße ✓')]))).toBe('Grüße ✓');
    expect(decodeText(new TextEncoder().encode('naïve'))).toBe('naïve');
  });

  it('decodes UTF-16 LE and BE by their BOM, and BOM-less UTF-16 by its NUL pattern', () => {
    expect(decodeText(utf16('Hello, Welt – €', 'le', true))).toBe('Hello, Welt – €');
    expect(decodeText(utf16('Hello, Welt – €', 'be', true))).toBe('Hello, Welt – €');
    expect(decodeText(utf16('plain ascii text', 'le', false))).toBe('plain ascii text');
  });

  it('honours a declared charset when the bytes are not UTF-8', () => {
    const head = new TextEncoder().encode('<html><head><meta charset="Shift_JIS"></head><body><p>');
    const sjis = new Uint8Array([...head, 0x93, 0xfa, 0x96, 0x7b]); // 日本 in Shift_JIS
    expect(extractHtml(decodeText(sjis)).blocks.map((b) => b.text)).toEqual(['日本']);
  });

  it('falls back to windows-1252 for bytes that are not UTF-8', () => {
    // "Café – “quoted”" in windows-1252: é = E9, – = 96, “ = 93, ” = 94.
    expect(decodeText(new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x93, 0x71, 0x94]))).toBe('Café – “q”');
  });
});
