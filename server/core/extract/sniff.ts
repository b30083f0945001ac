/**
 * Decides an upload's format from its content (the first ~64 KiB), never from its name alone:
 * browsers and users mislabel files, and a renamed PNG must not reach a text extractor. The
 * filename only breaks ties between text formats (Markdown vs plain text, HTML fragments).
 */
import { decodeHead } from './flow/decode.js';
import { looksLikeCsv } from './sniff-csv.js';
import type { DocumentFormat } from './types.js';

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

function startsWith(head: Uint8Array, bytes: readonly number[], at = 0): boolean {
  if (head.length < at + bytes.length) return false;
  return bytes.every((b, i) => head[at + i] === b);
}

function indexOf(head: Uint8Array, bytes: readonly number[], from = 0, to = head.length): number {
  const last = Math.min(to, head.length) - bytes.length;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < bytes.length; j++) if (head[i + j] !== bytes[j]) continue outer;
    return i;
  }
  return -1;
}

const PDF_MAGIC = ascii('%PDF-');

/**
 * `%PDF-` followed by a version digit within the first 1024 bytes (readers accept junk before it).
 * Past offset 0 it must start a line or follow binary bytes, so that a text *about* PDF headers
 * ("the file starts with %PDF-1.7") is not taken for a PDF.
 */
function isPdf(head: Uint8Array): boolean {
  for (
    let at = indexOf(head, PDF_MAGIC, 0, 1024 + PDF_MAGIC.length);
    at >= 0;
    at = indexOf(head, PDF_MAGIC, at + 1, 1024 + PDF_MAGIC.length)
  ) {
    const digit = head[at + 5];
    if (digit !== undefined && (digit < 0x30 || digit > 0x39)) continue;
    const before = at === 0 ? undefined : head[at - 1];
    if (before === undefined || before === 0x0a || before === 0x0d || before < 0x09 || before >= 0x80) return true;
  }
  return false;
}

const ZIP_LOCAL = [0x50, 0x4b, 0x03, 0x04];

/**
 * The main part of each OOXML format we read, and its relationships part, in order of precedence: a
 * Word document or a presentation may embed a workbook (a chart's data), never the other way round.
 */
const OOXML_PARTS: ReadonlyArray<{ format: 'docx' | 'pptx' | 'xlsx'; names: readonly string[] }> = [
  { format: 'docx', names: ['word/document.xml', 'word/_rels/document.xml.rels'] },
  { format: 'pptx', names: ['ppt/presentation.xml', 'ppt/_rels/presentation.xml.rels'] },
  { format: 'xlsx', names: ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels'] },
];

/**
 * Which OOXML format a ZIP is, by its main part: `word/document.xml` (DOCX), `ppt/presentation.xml`
 * (PPTX), `xl/workbook.xml` (XLSX, XLSM). The local headers are walked first (exact names); a header whose
 * size is deferred to a data descriptor stops the walk, and then the bytes are searched for the names.
 * `[Content_Types].xml` alone would match every one of them.
 */
function zipFormat(head: Uint8Array): 'docx' | 'pptx' | 'xlsx' | null {
  const dv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const decoder = new TextDecoder();
  const seen = new Set<string>();
  let pos = 0;
  while (pos + 30 <= head.length && startsWith(head, ZIP_LOCAL, pos)) {
    const flags = dv.getUint16(pos + 6, true);
    const size = dv.getUint32(pos + 18, true);
    const nameLength = dv.getUint16(pos + 26, true);
    const extraLength = dv.getUint16(pos + 28, true);
    seen.add(decoder.decode(head.subarray(pos + 30, pos + 30 + nameLength)));
    if (flags & 0x08 && size === 0) break;
    pos += 30 + nameLength + extraLength + size;
  }
  for (const { format, names } of OOXML_PARTS) if (names.some((n) => seen.has(n))) return format;
  for (const { format, names } of OOXML_PARTS) if (names.some((n) => indexOf(head, ascii(n)) >= 0)) return format;
  return null;
}

/**
 * Formats recognised by magic bytes that we do not extract: images, archives, executables. Magics
 * made of plain letters (RIFF, ID3, OggS...) are left to the binary check, which catches those
 * formats by their NUL bytes, so that a text file starting with such a word is not rejected.
 */
const BINARY_MAGIC: ReadonlyArray<readonly number[]> = [
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  ascii('GIF87a'),
  ascii('GIF89a'),
  [0x49, 0x49, 0x2a, 0x00], // TIFF (little-endian)
  [0x4d, 0x4d, 0x00, 0x2a], // TIFF (big-endian)
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07], // RAR
  [0x1f, 0x8b], // gzip
  [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], // xz
  [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], // 7z
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
  [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], // OLE2: legacy .doc/.xls, encrypted Office files
  ascii('SQLite format 3'),
  [0x00, 0x61, 0x73, 0x6d], // wasm
  [0xca, 0xfe, 0xba, 0xbe], // Mach-O fat / Java class
  [0xcf, 0xfa, 0xed, 0xfe], // Mach-O 64
  ascii('%!PS'), // PostScript: text, but a program, not a document we can read
  ascii('{\\rtf'), // RTF: text, but markup we do not parse
  [0x50, 0x4b, 0x05, 0x06], // empty ZIP
  [0x50, 0x4b, 0x07, 0x08], // spanned ZIP
];

/** Images that are documents (scans, photos of pages): OCR reads them. GIF, BMP and the rest stay unsupported. */
function isDocumentImage(head: Uint8Array): boolean {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  const tiff = [
    [0x49, 0x49, 0x2a, 0x00],
    [0x4d, 0x4d, 0x00, 0x2a],
  ];
  if (startsWith(head, png) || startsWith(head, [0xff, 0xd8, 0xff]) || tiff.some((m) => startsWith(head, m)))
    return true;
  return startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8);
}

function isKnownBinary(head: Uint8Array): boolean {
  if (BINARY_MAGIC.some((magic) => startsWith(head, magic))) return true;
  return startsWith(head, ascii('ftyp'), 4); // MP4, MOV, HEIC, AVIF
}

/** Text that is really binary: NULs, or many control characters (C0 other than layout, and C1). */
function looksBinary(text: string): boolean {
  if (text.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (
      (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c && c !== 0x0b && c !== 0x1b) ||
      (c >= 0x7f && c <= 0x9f)
    ) {
      control++;
    }
  }
  return control > Math.max(2, text.length * 0.05);
}

/** The text after leading whitespace, comments and an XML declaration. */
function skipProlog(text: string): string {
  let t = text.replace(/^\uFEFF/, '');
  for (;;) {
    const trimmed = t.trimStart();
    if (trimmed.startsWith('<!--')) {
      const end = trimmed.indexOf('-->');
      if (end < 0) return '';
      t = trimmed.slice(end + 3);
    } else if (trimmed.startsWith('<?xml')) {
      const end = trimmed.indexOf('?>');
      if (end < 0) return '';
      t = trimmed.slice(end + 2);
    } else {
      return trimmed;
    }
  }
}

/**
 * Code is where documents quote markup: tags in fenced code or markdown in <pre> prove nothing.
 * (An unclosed fence runs to the end of the text: `(?![\s\S])`, since `$` would stop at a line end.)
 */
function withoutFences(text: string): string {
  return text
    .replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?(?:\n {0,3}\1[^\n]*|(?![\s\S]))/gm, '')
    .replace(/`[^`\n]+`/g, '');
}

/** The text without <pre>/<code>/<script>/<style> elements; a linear scan (no backtracking regex). */
function withoutHtmlCode(text: string): string {
  const lower = text.toLowerCase();
  const opener = /<(pre|code|script|style|textarea)\b/g;
  let out = '';
  let pos = 0;
  for (let m = opener.exec(lower); m; m = opener.exec(lower)) {
    out += text.slice(pos, m.index);
    const close = lower.indexOf(`</${m[1] ?? ''}`, opener.lastIndex);
    if (close < 0) return out; // unclosed: code to the end
    pos = lower.indexOf('>', close) + 1 || lower.length;
    opener.lastIndex = pos;
  }
  return out + text.slice(pos);
}

/** Block-level HTML tags (inline ones like <b> turn up in plain text, these hardly do). */
const BLOCK_TAG =
  '<\\/?(?:p|div|table|thead|tbody|tr|td|th|ul|ol|li|h[1-6]|br|hr|section|article|header|footer|nav|main|aside|blockquote|pre|figure|dl|dt|dd|form)(?=[\\s>/])[^<>]*>';

function count(text: string, re: RegExp, cap = Infinity): number {
  return Math.min(cap, text.match(re)?.length ?? 0);
}

/**
 * How strongly the text shows Markdown structure. Headings, fences and table rules are strong;
 * links, bold and inline code are weak (plain-text mail has the odd one), so they add up slowly.
 */
function markdownScore(text: string): number {
  const t = withoutHtmlCode(text);
  const firstLine = /^\s*([^\n]*)/.exec(t)?.[1] ?? '';
  let score = 0;
  score += 2 * count(t, /^ {0,3}#{1,6}[ \t]+\S/gm, 5);
  if (/^#{1,6}[ \t]+\S/.test(firstLine)) score += 1;
  if (count(t, /^ {0,3}(?:```|~~~)/gm) >= 2) score += 3;
  score += 3 * count(t, /^ *\|? *:?-{3,}:? *(?:\| *:?-{3,}:? *)+\|? *$/gm, 2);
  // Bounded repetitions: unbounded ones backtrack quadratically on inputs like "[a](" x 10000.
  score += 2 * count(t, /!\[[^\]\n]{0,200}\]\([^)\s]{1,500}(?:\s+"[^"\n]{0,200}")?\)/g, 2);
  score += count(t, /(?<!!)\[[^\]\n]{1,200}\]\([^)\s]{1,500}(?:\s+"[^"\n]{0,200}")?\)/g, 5);
  score += 2 * count(t, /^ {0,3}\[[^\]\n]+\]:[ \t]+\S+/gm, 2);
  score += 2 * count(t, /^ *[-*+] \[[ xX]\] /gm, 1);
  score += count(t, /\*\*[^*\n]+\*\*|__[^_\n]+__/g, 2);
  score += count(t, /`[^`\n]+`/g, 2);
  return score;
}

const CSV_EXT = /\.(?:csv|tsv|tab)$/i;
/** What callers hand the sniffer: the first 64 KiB of a file, or all of a smaller one. */
const SNIFF_SIZE = 64 * 1024;
const MARKDOWN_EXT = /\.(?:md|markdown|mdx|mdown|mkd|mkdn)$/i;
const HTML_EXT = /\.(?:html?|xhtml)$/i;

function classifyText(text: string, filename: string | undefined): DocumentFormat | null {
  const start = skipProlog(text);
  if (/^<!doctype\s+html\b/i.test(start) || /^<html[\s>]/i.test(start)) return 'html';
  if (/^<svg[\s>]/i.test(start) || /^<!doctype\s+svg\b/i.test(start)) return null; // an image
  const prose = withoutFences(text);
  const md = markdownScore(text);
  // Page-level tags mean HTML, unless the text is clearly Markdown that quotes them (in an
  // indented code block, say): HTML pages practically never show Markdown structure.
  if (md < 3 && /<!doctype\s+html\b|<(?:html|head|body)[\s>]/i.test(prose)) return 'html';
  const mdHint = filename !== undefined && MARKDOWN_EXT.test(filename);
  const htmlHint = filename !== undefined && HTML_EXT.test(filename);
  const tags = count(prose, new RegExp(BLOCK_TAG, 'gi'));
  const startsWithTag = new RegExp(`^${BLOCK_TAG}`, 'i').test(start);
  // An HTML fragment: block tags and no Markdown structure. Markdown may embed HTML, so with
  // Markdown structure (or a .md name) it stays Markdown; its HTML blocks are extracted anyway.
  if (htmlHint && tags >= 1) return 'html';
  if (!mdHint && md < 3 && (tags >= 3 || (startsWithTag && tags >= 2))) return 'html';
  if (mdHint || md >= 3) return 'markdown';
  return 'text';
}

export function sniffFormat(head: Uint8Array, filename?: string): DocumentFormat | null {
  if (head.length === 0) return null;
  if (isPdf(head)) return 'pdf';
  if (startsWith(head, ZIP_LOCAL)) return zipFormat(head);
  if (isDocumentImage(head)) return 'image';
  if (isKnownBinary(head)) return null;
  const { text } = decodeHead(head);
  if (looksBinary(text)) return null;
  const kind = classifyText(text, filename);
  const csvName = filename !== undefined && CSV_EXT.test(filename);
  // A head of the full sniffing size is (most likely) cut short: its last record may be partial.
  if ((kind === 'text' || (csvName && kind !== 'html')) && looksLikeCsv(text, head.length >= SNIFF_SIZE, csvName))
    return 'csv';
  return kind;
}
