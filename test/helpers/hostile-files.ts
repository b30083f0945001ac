/**
 * Hostile documents for the hardening tests, generated small and fast: a deflate stream of a repeated
 * megabyte is the same ~1 KB block over and over (each ends with a full flush, so it depends on nothing
 * before it), so a stream inflating to gigabytes is a concatenation, never a gigabyte in this process.
 * Checksums (Adler-32, CRC-32) are computed over what the streams inflate to, so every file is valid:
 * only its size is hostile.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

const MiB = 1024 * 1024;

/** A stream's logical content: plain bytes, or one chunk repeated. */
export type Part = Uint8Array | { repeat: Uint8Array; times: number };

function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; ) {
    const end = Math.min(data.length, i + 5552);
    for (; i < end; i++) {
      a += data[i] as number;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** zlib's adler32_combine: the checksum of A then B from theirs and B's length. */
function adler32Combine(adler1: number, adler2: number, len2: number): number {
  const BASE = 65521;
  const rem = len2 % BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % BASE;
  sum1 += (adler2 & 0xffff) + BASE - 1;
  sum2 += (adler1 >>> 16) + (adler2 >>> 16) + BASE - rem;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum2 >= BASE << 1) sum2 -= BASE << 1;
  if (sum2 >= BASE) sum2 -= BASE;
  return (sum1 | (sum2 << 16)) >>> 0;
}

interface Deflated {
  /** Raw deflate (no header or trailer). */
  raw: Buffer;
  size: number;
  adler: number;
  crc: number;
}

function deflateParts(parts: readonly Part[]): Deflated {
  const out: Buffer[] = [];
  let size = 0;
  let adler = 1;
  let crc = 0;
  const flushed = (bytes: Uint8Array) => deflateRawSync(bytes, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  for (const part of parts) {
    if (part instanceof Uint8Array) {
      out.push(flushed(part));
      adler = adler32Combine(adler, adler32(part), part.length);
      crc = crc32(part, crc);
      size += part.length;
      continue;
    }
    const block = flushed(part.repeat);
    const a = adler32(part.repeat);
    for (let i = 0; i < part.times; i++) {
      out.push(block);
      adler = adler32Combine(adler, a, part.repeat.length);
      crc = crc32(part.repeat, crc);
    }
    size += part.repeat.length * part.times;
  }
  out.push(deflateRawSync(Buffer.alloc(0))); // the final (empty) block
  return { raw: Buffer.concat(out), size, adler, crc };
}

/** A zlib stream (what PDF FlateDecode and PNG IDAT hold). */
function zlibOf(parts: readonly Part[]): Buffer {
  const d = deflateParts(parts);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(d.adler);
  return Buffer.concat([Buffer.from([0x78, 0xda]), d.raw, trailer]);
}

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

/** `mib` MiB of one byte value, as parts. */
const repeated = (byte: number, mib: number): Part => ({ repeat: Buffer.alloc(MiB, byte), times: mib });

// ---------------------------------------------------------------- PDF

interface PdfObject {
  dict: string;
  stream?: Buffer;
}

/** A classic PDF (xref table) of the given objects, numbered from 1; object 1 is the catalog. */
function writePdf(objects: readonly PdfObject[]): Buffer {
  const parts: Buffer[] = [latin1('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(at);
    const head = o.stream
      ? `${i + 1} 0 obj\n<<${o.dict}/Length ${o.stream.length}>>\nstream\n`
      : `${i + 1} 0 obj\n${o.dict}\n`;
    const chunk = o.stream ? [latin1(head), o.stream, latin1('\nendstream\nendobj\n')] : [latin1(`${head}endobj\n`)];
    for (const c of chunk) {
      parts.push(c);
      at += c.length;
    }
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  parts.push(latin1(`${xref}trailer\n<</Size ${objects.length + 1}/Root 1 0 R>>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const FONT = { dict: '<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>' };

/** One A4 page whose content is the given stream. */
function onePage(content: PdfObject): Buffer {
  return writePdf([
    { dict: '<</Type/Catalog/Pages 2 0 R>>' },
    { dict: '<</Type/Pages/Kids[3 0 R]/Count 1>>' },
    { dict: '<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 5 0 R>>>>/Contents 4 0 R>>' },
    content,
    FONT,
  ]);
}

/** A one-page A4 PDF (font /F1: Helvetica) whose content stream is `content`, stored as is or deflated. */
export function pdfOfContent(content: string, deflate = false): Buffer {
  return onePage(
    deflate
      ? { dict: '/Filter/FlateDecode', stream: zlibOf([latin1(content)]) }
      : { dict: '', stream: latin1(content) },
  );
}

/** A one-page PDF whose content stream inflates to `mib` MiB of NUL bytes (whitespace to a PDF lexer). */
export function pdfZlibBomb(mib: number): Buffer {
  return onePage({ dict: '/Filter/FlateDecode', stream: zlibOf([repeated(0, mib)]) });
}

/**
 * A one-page PDF whose content stream inflates to `mib` MiB of text operators: one short word at a new
 * place each time (an absolute text matrix), so every one is an item of its own for the text layer.
 */
export function pdfTextOperatorBomb(mib: number): Buffer {
  const ops: string[] = [];
  let size = 0;
  for (let i = 0; size < MiB - 64; i++) {
    const op = `1 0 0 1 ${72 + (i % 7) * 61} ${72 + (i % 11) * 61} Tm (w${i % 3}) Tj `;
    ops.push(op);
    size += op.length;
  }
  const body = latin1(ops.join('').padEnd(MiB, ' '));
  return onePage({
    dict: '/Filter/FlateDecode',
    stream: zlibOf([latin1('BT /F1 4 Tf '), { repeat: body, times: mib }, latin1(' ET')]),
  });
}

/** A PDF of `count` pages sharing one content stream, under a two-level page tree (1000 per node). */
export function pdfManyPages(count: number): Buffer {
  const perNode = 1000;
  const nodes = Math.ceil(count / perNode);
  // 1 catalog, 2 root, 3 content, 4 font, 5.. intermediate nodes, then the pages.
  const firstPage = 5 + nodes;
  const objects: PdfObject[] = [
    { dict: '<</Type/Catalog/Pages 2 0 R>>' },
    {
      dict: `<</Type/Pages/Kids[${Array.from({ length: nodes }, (_, i) => `${5 + i} 0 R`).join(' ')}]/Count ${count}>>`,
    },
    { dict: '', stream: latin1('BT /F1 12 Tf 72 720 Td (A page of a very long document.) Tj ET') },
    FONT,
  ];
  for (let n = 0; n < nodes; n++) {
    const kids = Array.from(
      { length: Math.min(perNode, count - n * perNode) },
      (_, i) => `${firstPage + n * perNode + i} 0 R`,
    );
    objects.push({ dict: `<</Type/Pages/Parent 2 0 R/Kids[${kids.join(' ')}]/Count ${kids.length}>>` });
  }
  for (let p = 0; p < count; p++) {
    const parent = 5 + Math.floor(p / perNode);
    objects.push({
      dict: `<</Type/Page/Parent ${parent} 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 4 0 R>>>>/Contents 3 0 R>>`,
    });
  }
  return writePdf(objects);
}

/**
 * A page tree that loops: the root's second kid is a node whose kids are the root again, and it claims
 * `count` pages.
 */
export function pdfPageTreeLoop(count = 1000): Buffer {
  return writePdf([
    { dict: '<</Type/Catalog/Pages 2 0 R>>' },
    { dict: `<</Type/Pages/Kids[3 0 R 4 0 R]/Count ${count}>>` },
    { dict: '<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 6 0 R>>>>/Contents 5 0 R>>' },
    { dict: `<</Type/Pages/Parent 2 0 R/Kids[2 0 R 4 0 R]/Count ${count - 1}>>` },
    { dict: '', stream: latin1('BT /F1 12 Tf 72 720 Td (The only real page of this document.) Tj ET') },
    FONT,
  ]);
}

// ---------------------------------------------------------------- PNG

function pngChunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))));
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid greyscale PNG of `width` x `height` black pixels (`depth` bits each): every row is a filter
 * byte 0 and zero bits, so the image data is one long run of zeros and the file stays a few hundred KB.
 */
export function pngPixelBomb(width: number, height: number, depth: 1 | 8 = 8): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = 0; // greyscale
  const total = (1 + Math.ceil((width * depth) / 8)) * height;
  const whole = Math.floor(total / MiB);
  const idat = zlibOf([repeated(0, whole), Buffer.alloc(total - whole * MiB)]);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
}

// ---------------------------------------------------------------- DOCX

export interface ZipMember {
  name: string;
  parts: readonly Part[];
}

/** A ZIP whose members are deflated (method 8), with sizes and CRCs of what they really inflate to. */
export function writeZip(members: readonly ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    const d = deflateParts(m.parts);
    // Both headers hold CRC, compressed size, size and name length in a row: at 14 in the local, 16 in the central one.
    const sizes = (header: Buffer, at: number) => {
      header.writeUInt32LE(d.crc >>> 0, at);
      header.writeUInt32LE(d.raw.length, at + 4);
      header.writeUInt32LE(d.size, at + 8);
      header.writeUInt16LE(name.length, at + 12);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    sizes(local, 14);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    sizes(central, 16);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, d.raw);
    centrals.push(central, name);
    offset += local.length + name.length + d.raw.length;
  }
  const centralDir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(centralDir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, centralDir, end]);
}

const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A DOCX whose word/document.xml inflates to about `mib` MiB: one paragraph of a very long word. */
export function docxZipBomb(mib: number): Buffer {
  const text = (s: string): Part => Buffer.from(s, 'utf8');
  return writeZip([
    {
      name: '[Content_Types].xml',
      parts: [
        text(
          '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
            '<Default Extension="xml" ContentType="application/xml"/>' +
            '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        ),
      ],
    },
    {
      name: '_rels/.rels',
      parts: [
        text(
          '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
        ),
      ],
    },
    {
      name: 'word/document.xml',
      parts: [
        text(`<?xml version="1.0" encoding="UTF-8"?><w:document ${W_NS}><w:body><w:p><w:r><w:t>`),
        repeated(0x61, mib),
        text('</w:t></w:r></w:p></w:body></w:document>'),
      ],
    },
  ]);
}
