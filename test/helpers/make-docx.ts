/**
 * Builds real .docx files for tests: a tiny STORE-only ZIP writer plus the minimal WordprocessingML
 * parts (content types, relationships, styles, numbering, document). No zip library is a dependency,
 * and generating the documents here keeps every test input visible next to its assertions.
 */
import { crc32 } from 'node:zlib';

export interface ZipEntry {
  name: string;
  data: Uint8Array | string;
}

/** A ZIP archive with every entry STOREd (uncompressed), which any unzip (JSZip included) reads. */
export function makeZip(entries: readonly ZipEntry[]): Uint8Array {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = enc.encode(entry.name);
    const data = typeof entry.data === 'string' ? enc.encode(entry.data) : entry.data;
    const crc = crc32(data);
    const local = new Uint8Array(30 + name.length + data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true); // version needed
    lv.setUint16(6, 0x0800, true); // UTF-8 names
    lv.setUint16(8, 0, true); // STORE
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    local.set(data, 30 + name.length);
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x0800, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + centralSize + end.length);
  let pos = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, pos);
    pos += part.length;
  }
  return out;
}

export type DocxPart =
  | { kind: 'title'; text: string }
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'para'; text: string; style?: 'Code' | 'Caption' }
  | { kind: 'bullet'; text: string; level?: number }
  | { kind: 'numbered'; text: string; level?: number }
  | { kind: 'table'; rows: string[][]; headerRows?: number }
  /** An inline picture (word/media/image1.png) with the given alt text (Word's "descr"). */
  | { kind: 'image'; alt: string }
  /** Raw WordprocessingML for the body, e.g. a paragraph holding an OMML equation. */
  | { kind: 'raw'; xml: string };

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function run(text: string): string {
  return `<w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r>`;
}

function paragraph(text: string, styleId?: string, num?: { id: number; level: number }): string {
  const props: string[] = [];
  if (styleId) props.push(`<w:pStyle w:val="${styleId}"/>`);
  if (num) props.push(`<w:numPr><w:ilvl w:val="${num.level}"/><w:numId w:val="${num.id}"/></w:numPr>`);
  return `<w:p>${props.length ? `<w:pPr>${props.join('')}</w:pPr>` : ''}${run(text)}</w:p>`;
}

function table(rows: string[][], headerRows: number): string {
  const width = Math.max(...rows.map((r) => r.length));
  const grid = `<w:tblGrid>${'<w:gridCol w:w="2000"/>'.repeat(width)}</w:tblGrid>`;
  const trs = rows.map((row, i) => {
    const trPr = i < headerRows ? '<w:trPr><w:tblHeader/></w:trPr>' : '';
    const tcs = row.map((cell) => `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${paragraph(cell)}</w:tc>`);
    return `<w:tr>${trPr}${tcs.join('')}</w:tr>`;
  });
  return `<w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr>${grid}${trs.join('')}</w:tbl>`;
}

const W_NS = [
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"',
  'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"',
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"',
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"',
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"',
  'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"',
].join(' ');

/** A 1x1 transparent PNG for the picture part. */
export const TINY_PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

function drawing(alt: string): string {
  return (
    `<w:drawing><wp:inline><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Picture 1" descr="${esc(alt)}"/>` +
    '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>' +
    '<pic:nvPicPr><pic:cNvPr id="0" name="image1.png"/><pic:cNvPicPr/></pic:nvPicPr>' +
    '<pic:blipFill><a:blip r:embed="rId3"/></pic:blipFill><pic:spPr/></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>'
  );
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Default Extension="png" ContentType="image/png"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
</Types>`;

const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
</Relationships>`;

const DOCUMENT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/>
</Relationships>`;

function style(id: string, name: string): string {
  return `<w:style w:type="paragraph" w:styleId="${id}"><w:name w:val="${name}"/></w:style>`;
}

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles ${W_NS}>
${style('Normal', 'Normal')}${style('Title', 'Title')}${style('Heading1', 'heading 1')}${style('Heading2', 'heading 2')}
${style('Heading3', 'heading 3')}${style('Code', 'Code')}${style('Caption', 'caption')}${style('ListParagraph', 'List Paragraph')}
</w:styles>`;

function abstractNum(id: number, format: 'bullet' | 'decimal'): string {
  const levels = [0, 1, 2].map(
    (l) =>
      `<w:lvl w:ilvl="${l}"><w:start w:val="1"/><w:numFmt w:val="${format}"/><w:lvlText w:val="${format === 'bullet' ? '•' : `%${l + 1}.`}"/></w:lvl>`,
  );
  return `<w:abstractNum w:abstractNumId="${id}">${levels.join('')}</w:abstractNum>`;
}

const NUMBERING = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering ${W_NS}>
${abstractNum(0, 'bullet')}${abstractNum(1, 'decimal')}
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>
</w:numbering>`;

/** numId 1 is a bullet list, numId 2 a decimal one (see NUMBERING). */
function partXml(part: DocxPart): string {
  switch (part.kind) {
    case 'title':
      return paragraph(part.text, 'Title');
    case 'heading':
      return paragraph(part.text, `Heading${part.level}`);
    case 'para':
      return paragraph(part.text, part.style);
    case 'bullet':
      return paragraph(part.text, 'ListParagraph', { id: 1, level: part.level ?? 0 });
    case 'numbered':
      return paragraph(part.text, 'ListParagraph', { id: 2, level: part.level ?? 0 });
    case 'table':
      return table(part.rows, part.headerRows ?? 0);
    case 'image':
      return `<w:p><w:r>${drawing(part.alt)}</w:r></w:p>`;
    case 'raw':
      return part.xml;
  }
}

export function documentXml(parts: readonly DocxPart[]): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ${W_NS}><w:body>${parts.map(partXml).join('')}<w:sectPr/></w:body></w:document>`;
}

/** A complete .docx whose body holds the given parts, in order. */
export function makeDocx(parts: readonly DocxPart[]): Uint8Array {
  return makeZip([
    { name: '[Content_Types].xml', data: CONTENT_TYPES },
    { name: '_rels/.rels', data: ROOT_RELS },
    { name: 'word/document.xml', data: documentXml(parts) },
    { name: 'word/_rels/document.xml.rels', data: DOCUMENT_RELS },
    { name: 'word/styles.xml', data: STYLES },
    { name: 'word/numbering.xml', data: NUMBERING },
    { name: 'word/media/image1.png', data: TINY_PNG },
  ]);
}
