/**
 * What a fetched link is, decided from its bytes first and its Content-Type second, and what to call it.
 * The bytes decide the binary formats (servers label PDFs `application/octet-stream`, or a login page
 * `application/pdf`); the header decides among text formats only where the bytes cannot (a page served
 * as text/html is HTML even when it has few tags), and refuses text that is not a document (JSON, CSS,
 * scripts), which the content sniffer alone would take for plain text.
 */
import { AppError } from '../errors.js';
import { sniffFormat } from '../extract/sniff.js';
import { DOCUMENT_FORMATS, type DocumentFormat } from '../extract/types.js';

/** How much of the body the sniffer looks at, as for uploads. */
const SNIFF_BYTES = 64 * 1024;

export interface ContentType {
  /** Lower-case media type without parameters, '' when the header is absent or empty. */
  mime: string;
  charset: string | undefined;
}

export function parseContentType(header: string | null): ContentType {
  const [type = '', ...params] = (header ?? '').split(';');
  let charset: string | undefined;
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(p);
    if (m?.[1]) charset = m[1].toLowerCase();
  }
  return { mime: type.trim().toLowerCase(), charset };
}

/** Media types a text document may be served with; '' (no header) and the generic binary ones included. */
const TEXT_DOCUMENT_TYPES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/unknown',
  'text/html',
  'application/xhtml+xml',
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'text/csv',
  'application/csv',
  'text/tab-separated-values',
]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const MARKDOWN_TYPES = new Set(['text/markdown', 'text/x-markdown']);
const CSV_TYPES = new Set(['text/csv', 'application/csv', 'text/tab-separated-values']);

export interface LinkFormat {
  format: DocumentFormat;
  /** The media type Lectern gives the bytes (for images, the one their magic names). */
  content_type: string;
  /** Extension, with its dot, that a file of this format gets. */
  extension: string;
}

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** The binary formats the bytes alone decide, with the media type and extension Lectern gives them. */
const OOXML_FORMATS: Record<'docx' | 'xlsx' | 'pptx', LinkFormat> = {
  docx: { format: 'docx', content_type: DOCX_TYPE, extension: '.docx' },
  xlsx: {
    format: 'xlsx',
    content_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extension: '.xlsx',
  },
  pptx: {
    format: 'pptx',
    content_type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extension: '.pptx',
  },
};

function imageFormat(head: Uint8Array): LinkFormat {
  if (head[0] === 0x89) return { format: 'image', content_type: 'image/png', extension: '.png' };
  if (head[0] === 0xff) return { format: 'image', content_type: 'image/jpeg', extension: '.jpg' };
  if (head[0] === 0x52) return { format: 'image', content_type: 'image/webp', extension: '.webp' };
  return { format: 'image', content_type: 'image/tiff', extension: '.tif' };
}

const TEXT_FORMATS: Record<'html' | 'markdown' | 'text' | 'csv', LinkFormat> = {
  csv: { format: 'csv', content_type: 'text/csv', extension: '.csv' },
  html: { format: 'html', content_type: 'text/html', extension: '.html' },
  markdown: { format: 'markdown', content_type: 'text/markdown', extension: '.md' },
  text: { format: 'text', content_type: 'text/plain', extension: '.txt' },
};

/** `nameHint` (the URL's file name) only breaks ties between text formats, as for uploads. */
export function decideFormat(bytes: Uint8Array, type: ContentType, nameHint: string | undefined): LinkFormat {
  const head = bytes.subarray(0, SNIFF_BYTES);
  const sniffed = sniffFormat(head, nameHint);
  const declared = type.mime === '' ? 'no Content-Type' : type.mime;
  if (sniffed === null) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `the link is not a document Lectern reads (${declared})`, {
      content_type: type.mime || null,
      supported: [...DOCUMENT_FORMATS],
    });
  }
  if (sniffed === 'pdf') return { format: 'pdf', content_type: 'application/pdf', extension: '.pdf' };
  if (sniffed === 'docx' || sniffed === 'xlsx' || sniffed === 'pptx') return OOXML_FORMATS[sniffed];
  if (sniffed === 'image') return imageFormat(head);
  if (!TEXT_DOCUMENT_TYPES.has(type.mime)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `the link is text but not a document (${declared})`, {
      content_type: type.mime,
      supported: [...DOCUMENT_FORMATS],
    });
  }
  if (HTML_TYPES.has(type.mime)) return TEXT_FORMATS.html;
  if (MARKDOWN_TYPES.has(type.mime)) return TEXT_FORMATS.markdown;
  if (CSV_TYPES.has(type.mime)) return TEXT_FORMATS.csv;
  return TEXT_FORMATS[sniffed];
}

/** The file name a Content-Disposition header gives (RFC 6266: `filename*` wins over `filename`). */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*([\w-]+)'[^']*'([^;]+)/i.exec(header);
  if (star?.[2]) {
    try {
      return decodeURIComponent(star[2].trim());
    } catch {
      // a malformed percent-encoding: fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return name?.trim() || undefined;
}

/** The last non-empty path segment of a URL, percent-decoded. */
export function urlFileName(url: string): string | undefined {
  const segments = new URL(url).pathname.split('/').filter(Boolean);
  const last = segments.at(-1);
  if (last === undefined) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** Extensions that say nothing true about the content once the format is known: replaced, not kept. */
const REPLACED_EXTENSIONS =
  /\.(?:html?|xhtml|shtml|php\d?|aspx?|jsp|cgi|pl|cfm|pdf|docx?|xlsx?|xlsm|pptx?|csv|tsv|txt|text|md|markdown|png|jpe?g|tiff?|webp|gif|bin|dat)$/i;
/** Names that say nothing about a page (`/index.html`, `/`): the title names it better. */
const GENERIC_NAMES = /^(?:index|default|home|main|view|page|article|download|file)$/i;
const SAME_EXTENSION: Record<string, RegExp> = {
  '.html': /\.(?:html?|xhtml)$/i,
  '.md': /\.(?:md|markdown|mdx)$/i,
  '.jpg': /\.jpe?g$/i,
  '.tif': /\.tiff?$/i,
};

/**
 * A name for the ingested file: the server's (Content-Disposition), else the URL's last segment, else
 * the page title, else the host; with the extension of the format found, so that a name never claims a
 * format the bytes are not. Path separators and control characters are replaced, as the name may
 * become part of a path when the file is stored or exported.
 */
export function linkFileName(input: {
  url: string;
  disposition: string | null;
  title: string | undefined;
  extension: string;
}): string {
  const fromServer = dispositionName(input.disposition);
  const fromUrl = urlFileName(input.url);
  const title = input.title?.trim() || undefined;
  let name = fromServer ?? fromUrl ?? title ?? new URL(input.url).hostname;
  const sameExt = SAME_EXTENSION[input.extension] ?? new RegExp(`\\${input.extension}$`, 'i');
  if (!sameExt.test(name)) {
    name = name.replace(REPLACED_EXTENSIONS, '');
    if (fromServer === undefined && title !== undefined && (name === '' || GENERIC_NAMES.test(name))) name = title;
  }
  name =
    name
      .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '_')
      .replace(/^[.\s]+|[.\s]+$/g, '')
      .slice(0, 120) || 'document';
  return sameExt.test(name) ? name : `${name}${input.extension}`;
}
