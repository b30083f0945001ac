import { describe, expect, it } from 'vitest';
import { sniffFormat } from '../../server/core/extract/sniff.js';
import { makeDocx, makeZip, TINY_PNG } from '../helpers/make-docx.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

function utf16(text: string, endian: 'le' | 'be'): Uint8Array {
  const bytes: number[] = endian === 'le' ? [0xff, 0xfe] : [0xfe, 0xff];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes.push(...(endian === 'le' ? [unit & 0xff, unit >> 8] : [unit >> 8, unit & 0xff]));
  }
  return new Uint8Array(bytes);
}

/** The upload's first 64 KiB, as the server passes it. */
const head = (data: Uint8Array): Uint8Array => data.subarray(0, 64 * 1024);

describe('sniffFormat', () => {
  describe('pdf', () => {
    it('detects %PDF- at the start', () => {
      expect(sniffFormat(utf8('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'))).toBe('pdf');
    });

    it('detects %PDF- after junk within the first 1024 bytes, not after it', () => {
      const junk = (n: number): number[] => Array.from({ length: n }, (_, i) => (i * 31) % 256);
      expect(sniffFormat(new Uint8Array([...junk(1000), ...utf8('%PDF-1.4\n')]))).toBe('pdf');
      expect(sniffFormat(new Uint8Array([...junk(2000), ...utf8('%PDF-1.4\n')]))).toBeNull();
    });

    it('does not take text that mentions a PDF header for a PDF', () => {
      expect(sniffFormat(utf8('Every PDF begins with %PDF-1.x; this note explains why.\n'))).toBe('text');
    });
  });

  describe('zip', () => {
    const docx = makeDocx([
      { kind: 'heading', level: 1, text: 'Hi' },
      { kind: 'para', text: 'Body' },
    ]);

    it('detects a DOCX by its word/document.xml entry', () => {
      expect(sniffFormat(head(docx), 'upload.bin')).toBe('docx');
    });

    it('walks the local headers past earlier entries to word/document.xml', () => {
      const zip = makeZip([
        { name: '[Content_Types].xml', data: '<Types/>' },
        { name: 'docProps/thumbnail.jpeg', data: new Uint8Array(30 * 1024).fill(0x41) },
        { name: 'word/document.xml', data: '<w:document/>' },
      ]);
      expect(sniffFormat(head(zip))).toBe('docx');
    });

    it('rejects other ZIPs', () => {
      expect(sniffFormat(makeZip([{ name: 'readme.txt', data: 'hello' }]), 'report.docx')).toBeNull();
      expect(sniffFormat(makeZip([{ name: '[Content_Types].xml', data: '<Types/>' }]), 'sheet.xlsx')).toBeNull();
    });

    it('tells OOXML packages apart by their main part, whatever their name', () => {
      const types = { name: '[Content_Types].xml', data: '<Types/>' };
      expect(sniffFormat(makeZip([types, { name: 'xl/workbook.xml', data: '<workbook/>' }]), 'sheet.docx')).toBe(
        'xlsx',
      );
      expect(
        sniffFormat(makeZip([types, { name: 'ppt/presentation.xml', data: '<p:presentation/>' }]), 'deck.xlsx'),
      ).toBe('pptx');
      // A presentation embedding a chart's workbook is a presentation.
      const deck = makeZip([
        types,
        { name: 'ppt/embeddings/xl/workbook.xml', data: '' },
        { name: 'xl/workbook.xml', data: '' },
        { name: 'ppt/presentation.xml', data: '' },
      ]);
      expect(sniffFormat(deck)).toBe('pptx');
    });
  });

  describe('csv', () => {
    it.each([
      ['commas', 'id,name,amount\n1,Ada,3.5\n2,Bob,4\n3,Cy,5\n', undefined],
      ['semicolons', 'Produkt;Preis\nKäse;3,50\nBrot;2,25\nMilch;1,10\nTee;2,00\n', undefined],
      ['tabs, in UTF-16', 'a\tb\tc\n1\t2\t3\n4\t5\t6\n', 'utf16'],
      ['quoted fields across lines', 'k,v,w\n1,"two\nlines, quoted",x\n2,plain,y\n3,"a ""quote""",z\n', undefined],
      ['a single column named .csv', 'name\nAda\nBob\n', 'names.csv'],
    ])('finds CSV by its records: %s', (_name, text, how) => {
      const data = how === 'utf16' ? utf16(text, 'le') : utf8(text);
      expect(sniffFormat(data, how === 'names.csv' ? how : 'data.txt')).toBe('csv');
    });

    it('drops the last record of a head that is cut short', () => {
      const rows = Array.from({ length: 8000 }, (_, i) => `${i},item ${i},${i * 2}`).join('\n');
      expect(sniffFormat(head(utf8(`id,name,double\n${rows}`)), 'x.bin')).toBe('csv');
    });

    it.each([
      [
        'prose with a comma per line',
        'Dear team, thanks.\nThe meeting ran long, as usual.\nSee you soon, and bring snacks.\n',
      ],
      ['two lines of two fields', 'a,b\nc,d\n'],
      ['ragged records', 'a,b,c\n1,2\n3,4,5,6\n7\n'],
      ['Markdown with a table', '# Title\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n'],
    ])('leaves text alone: %s', (_name, text) => {
      expect(sniffFormat(utf8(text), 'notes.txt')).not.toBe('csv');
    });
  });

  describe('binary', () => {
    it.each([
      ['GIF', utf8('GIF89a\x01\x00\x01\x00')],
      ['ELF', new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00])],
      ['gzip', new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00])],
      ['legacy .doc (OLE2)', new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0])],
      ['garbage', Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)],
      ['text with NUL bytes', new Uint8Array([...utf8('hello'), 0, ...utf8('world')])],
      ['control characters', new Uint8Array(Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 0x01 : 0x61)))],
      ['empty input', new Uint8Array(0)],
    ])('returns null for %s', (_name, data) => {
      expect(sniffFormat(data, 'document.pdf')).toBeNull();
    });

    it('takes PNG, JPEG, TIFF and WebP for image documents (read by OCR) whatever they are called', () => {
      expect(sniffFormat(TINY_PNG, 'scan.pdf')).toBe('image');
      expect(sniffFormat(TINY_PNG, 'notes.md')).toBe('image');
      expect(sniffFormat(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]), 'a.txt')).toBe(
        'image',
      );
      expect(sniffFormat(new Uint8Array([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0]), 'scan')).toBe('image');
      expect(sniffFormat(new Uint8Array([0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8]), 'scan')).toBe('image');
      expect(sniffFormat(new TextEncoder().encode('RIFF\x10\x00\x00\x00WEBPVP8 '), 'photo')).toBe('image');
      // RIFF alone is also WAV and AVI: not a document.
      expect(
        sniffFormat(
          new Uint8Array([...new TextEncoder().encode('RIFF'), 0x10, 0, 0, 0, ...new TextEncoder().encode('WAVEfmt ')]),
          'a',
        ),
      ).toBeNull();
    });
  });

  describe('html', () => {
    it.each([
      ['a doctype', '<!DOCTYPE html>\n<html><head><title>x</title></head><body><p>Hi</p></body></html>'],
      [
        '<html> after a BOM, comments and an XML declaration',
        '\uFEFF<?xml version="1.0"?>\n<!-- saved -->\n<html xmlns="http://www.w3.org/1999/xhtml">',
      ],
      ['a <body> without <html>', 'Some preamble\n<body>\n<p>Hi</p>\n</body>'],
      ['a fragment of block tags', '<div class="post">\n<h2>Title</h2>\n<p>First</p>\n<p>Second</p>\n</div>'],
    ])('detects %s', (_name, text) => {
      expect(sniffFormat(utf8(text))).toBe('html');
    });

    it('lets content win over the filename', () => {
      expect(sniffFormat(utf8('<!doctype html><p>Not a PDF</p>'), 'report.pdf')).toBe('html');
      expect(sniffFormat(utf8('<!doctype html><p>Not Markdown</p>'), 'README.md')).toBe('html');
    });

    it('detects UTF-16 HTML by its BOM', () => {
      expect(sniffFormat(utf16('<!DOCTYPE html><html><body><p>Hallo</p></body></html>', 'le'))).toBe('html');
      expect(sniffFormat(utf16('<html><body><p>Hallo</p></body></html>', 'be'))).toBe('html');
    });

    it('returns null for SVG images', () => {
      expect(
        sniffFormat(utf8('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10"></svg>'), 'x.html'),
      ).toBeNull();
    });
  });

  describe('markdown and text', () => {
    it('detects Markdown structure without a filename', () => {
      expect(sniffFormat(utf8('# Title\n\nSome prose here.\n'))).toBe('markdown');
      expect(sniffFormat(utf8('Intro\n\n```js\nconsole.log(1)\n```\n'))).toBe('markdown');
      expect(sniffFormat(utf8('| a | b |\n|---|---|\n| 1 | 2 |\n'))).toBe('markdown');
      expect(
        sniffFormat(utf8('See [one](http://a.example), [two](http://b.example) and [three](http://c.example).\n')),
      ).toBe('markdown');
    });

    it('uses the .md/.markdown/.mdx name as a hint for otherwise plain text', () => {
      expect(sniffFormat(utf8('Just a sentence.\n'), 'notes.md')).toBe('markdown');
      expect(sniffFormat(utf8('Just a sentence.\n'), 'notes.MARKDOWN')).toBe('markdown');
      expect(sniffFormat(utf8('Just a sentence.\n'), 'page.mdx')).toBe('markdown');
      expect(sniffFormat(utf8('Just a sentence.\n'), 'notes.txt')).toBe('text');
    });

    it('keeps Markdown that embeds HTML as Markdown', () => {
      const readme =
        '<p align="center"><img src="logo.png" alt="Logo"></p>\n\n# Project\n\nInstall with `npm i`, see [docs](https://x.example).\n';
      expect(sniffFormat(utf8(readme))).toBe('markdown');
      expect(sniffFormat(utf8('Text\n\n```html\n<html><body><p>x</p></body></html>\n```\n'))).toBe('markdown');
      expect(sniffFormat(utf8('# Embedding\n\n## Example\n\n    <body>\n      <p>x</p>\n    </body>\n'))).toBe(
        'markdown',
      );
    });

    it('calls prose with a stray link or tag plain text', () => {
      expect(sniffFormat(utf8('Dear team,\n\nplease read [this](http://x.example) before Monday.\n\nThanks\n'))).toBe(
        'text',
      );
      expect(sniffFormat(utf8('Use the <b> tag for bold.\n'))).toBe('text');
    });

    it('reads UTF-16 and windows-1252 text', () => {
      expect(sniffFormat(utf16('Plain words in UTF-16.\r\nSecond line.', 'le'), 'a.txt')).toBe('text');
      expect(sniffFormat(utf16('# Heading\n\nBody', 'be'))).toBe('markdown');
      expect(
        sniffFormat(new Uint8Array([...utf8('Caf'), 0xe9, ...utf8(' '), 0x93, ...utf8('au lait'), 0x94, 0x0a])),
      ).toBe('text');
    });

    it('tolerates a multi-byte character cut at the end of the head', () => {
      const text = utf8(`${'Grüße aus Köln. '.repeat(5000)}`);
      expect(sniffFormat(head(text))).toBe('text');
      expect(head(text).length).toBe(64 * 1024);
    });
  });
});
