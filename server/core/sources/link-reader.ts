/**
 * Reads a web link into something Lectern ingests like an upload: the raw bytes of a PDF, DOCX, image,
 * Markdown or text file, or, for an HTML page, its main content as a standalone HTML document (see
 * readable-html.ts). Every request goes through the guarded fetch it is given.
 */
import { createHash } from 'node:crypto';
import { type Clock, systemClock } from '../clock.js';
import { AppError } from '../errors.js';
import { detectEncoding } from '../extract/flow/decode.js';
import type { GuardedFetch } from '../net/types.js';
import { decideFormat, linkFileName, parseContentType, urlFileName, type ContentType } from './link-format.js';
import { readablePage, type ReadablePage } from './readable-html.js';
import { fetchOk } from './source-fetch.js';

export interface LinkDocument {
  /** The URL asked for. */
  url: string;
  /** The URL that answered, after redirects. */
  final_url: string;
  /** Hex SHA-256 of `bytes`: what a bot de-duplicates its documents by. */
  sha256: string;
  /** ISO 8601. */
  fetched_at: string;
  /** Media type of `bytes` (`text/html; charset=utf-8` for a reduced page). */
  content_type: string;
  /** A name with the extension of the format found, for the document's record. */
  file_name: string;
  bytes: Uint8Array;
  /** The page's title (HTML only). */
  title?: string;
}

export interface ReadLinkOptions {
  clock?: Clock;
  signal?: AbortSignal;
  /** Largest body read; the guarded fetch's policy limit when absent. */
  maxBytes?: number;
  /**
   * Reduces an HTML page to its main content: the server hands this to its worker pool, since Readability
   * runs synchronously for seconds on a big page. In this thread when absent.
   */
  reduce?: (html: string, url: string) => Promise<ReadablePage>;
}

const ACCEPT = 'text/html,application/xhtml+xml,application/pdf,text/markdown,text/plain;q=0.9,*/*;q=0.8';

/**
 * The text of an HTML body. A byte-order mark wins, then the header's charset, then what the bytes
 * show (valid UTF-8, a `<meta charset>`, else windows-1252): the order browsers use.
 */
function decodeHtml(bytes: Uint8Array, type: ContentType): string {
  const detected = detectEncoding(bytes);
  let encoding = detected.encoding;
  if (detected.bomLength === 0 && type.charset !== undefined) {
    try {
      encoding = new TextDecoder(type.charset).encoding;
    } catch {
      // a charset TextDecoder does not know: keep what the bytes show
    }
  }
  return new TextDecoder(encoding, { ignoreBOM: detected.bomLength === 0 }).decode(bytes);
}

/**
 * Text files are passed on as they are, except when the header names a charset the bytes alone would
 * not reveal (Shift_JIS, KOI8-R...): the extractors only guess from the bytes, so those are re-encoded
 * as UTF-8, and the content type says so.
 */
function textBytes(bytes: Uint8Array, type: ContentType, mime: string): { bytes: Uint8Array; content_type: string } {
  const detected = detectEncoding(bytes);
  if (detected.bomLength > 0 || type.charset === undefined) return { bytes, content_type: mime };
  let declared: string;
  try {
    declared = new TextDecoder(type.charset).encoding;
  } catch {
    return { bytes, content_type: mime };
  }
  if (declared === 'utf-8') return { bytes, content_type: `${mime}; charset=utf-8` };
  return {
    bytes: new TextEncoder().encode(new TextDecoder(declared).decode(bytes)),
    content_type: `${mime}; charset=utf-8`,
  };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Fetches `url` and returns the document to ingest. Throws coded errors: the guarded fetch's
 * (`URL_INVALID`, `URL_NOT_ALLOWED`, `FETCH_FAILED`, `RESPONSE_TOO_LARGE`), `FETCH_FAILED` with
 * `details.status` for a non-2xx answer, `UNSUPPORTED_MEDIA_TYPE` for content that is not a document
 * Lectern reads, and `EMPTY_CONTENT` for an empty body or a page without readable text.
 */
export async function readLink(fetch: GuardedFetch, url: string, opts: ReadLinkOptions = {}): Promise<LinkDocument> {
  const res = await fetchOk(
    fetch,
    url,
    { signal: opts.signal, maxBytes: opts.maxBytes, headers: { accept: ACCEPT } },
    'the link',
  );
  const raw = await res.bytes();
  const fetched_at = (opts.clock ?? systemClock)().toISOString();
  if (raw.length === 0) throw new AppError('EMPTY_CONTENT', 'the link answered an empty body', { url: res.url });
  const type = parseContentType(res.headers.get('content-type'));
  const found = decideFormat(raw, type, urlFileName(res.url));
  const disposition = res.headers.get('content-disposition');
  const base = { url, final_url: res.url, fetched_at };

  if (found.format !== 'html') {
    const { bytes, content_type } =
      found.format === 'markdown' || found.format === 'text' || found.format === 'csv'
        ? textBytes(raw, type, found.content_type)
        : { bytes: raw, content_type: found.content_type };
    const file_name = linkFileName({ url: res.url, disposition, title: undefined, extension: found.extension });
    return { ...base, sha256: sha256(bytes), content_type, file_name, bytes };
  }

  const html = decodeHtml(raw, type);
  const page = opts.reduce ? await opts.reduce(html, res.url) : readablePage(html, res.url);
  if (page.text_length === 0) throw new AppError('EMPTY_CONTENT', 'the page has no readable text', { url: res.url });
  const bytes = new TextEncoder().encode(page.html);
  const file_name = linkFileName({ url: res.url, disposition, title: page.title, extension: '.html' });
  return {
    ...base,
    sha256: sha256(bytes),
    content_type: 'text/html; charset=utf-8',
    file_name,
    bytes,
    ...(page.title !== undefined ? { title: page.title } : {}),
  };
}
