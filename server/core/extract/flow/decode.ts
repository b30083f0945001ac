/**
 * Bytes -> string for the text-based formats (HTML, Markdown, plain text). Uploads come from every
 * kind of editor, so the encoding is guessed: a BOM wins; otherwise UTF-8 when the bytes are valid
 * UTF-8, else a charset the file declares (HTML/XML), else windows-1252 (what "ANSI" files on
 * Western Windows machines are, and a superset of Latin-1 for printable characters). BOM-less UTF-16 is recognised by its NUL-byte pattern because
 * Windows tools (PowerShell 5 `>`, some exporters) still write it.
 */

/** The encodings we pick ourselves; a charset declared in the file may name any WHATWG encoding. */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | (string & {});

export interface DetectedEncoding {
  encoding: TextEncodingName;
  /** Length of the byte-order mark to skip (0 when there is none). */
  bomLength: number;
}

/** How many bytes the BOM-less UTF-16 check looks at; enough for a stable ratio, cheap on big files. */
const UTF16_SAMPLE = 4096;

function utf16WithoutBom(data: Uint8Array): TextEncodingName | null {
  const pairs = Math.floor(Math.min(data.length, UTF16_SAMPLE) / 2);
  if (pairs < 2) return null;
  let nulEven = 0;
  let nulOdd = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (data[i] === 0) nulEven++;
    if (data[i + 1] === 0) nulOdd++;
  }
  // Mostly-Latin UTF-16 has a NUL in (nearly) every high byte and almost never in the low byte;
  // binary files have NULs scattered over both positions and fail the second condition.
  if (nulOdd >= pairs * 0.3 && nulEven <= pairs * 0.02) return 'utf-16le';
  if (nulEven >= pairs * 0.3 && nulOdd <= pairs * 0.02) return 'utf-16be';
  return null;
}

function isValidUtf8(data: Uint8Array, partial: boolean): boolean {
  try {
    // `stream: true` keeps an incomplete sequence at the very end from counting as invalid, which
    // matters when `data` is only the head of a file cut at an arbitrary byte.
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data, { stream: partial });
    return true;
  } catch {
    return false;
  }
}

/**
 * A charset declared in the first bytes: HTML `<meta charset>` / `http-equiv` or an XML declaration.
 * Only consulted when the bytes are not UTF-8, so that Shift_JIS, GBK or KOI8-R pages still decode;
 * labels the WHATWG maps to windows-1252 (latin1, ascii...) fall through to our own decoder.
 */
function declaredCharset(data: Uint8Array): string | null {
  const ascii = new TextDecoder('windows-1252').decode(data.subarray(0, 2048));
  const m =
    /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(ascii) ??
    /<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i.exec(ascii);
  if (!m?.[1]) return null;
  try {
    const encoding = new TextDecoder(m[1]).encoding;
    // UTF-8/16 declarations are moot here (the bytes are not UTF-8, and UTF-16 has its own checks).
    return encoding === 'windows-1252' || encoding.startsWith('utf-') ? null : encoding;
  } catch {
    return null; // a label TextDecoder does not know
  }
}

export function detectEncoding(data: Uint8Array, partial = false): DetectedEncoding {
  const [b0, b1, b2] = data;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return { encoding: 'utf-8', bomLength: 3 };
  if (b0 === 0xff && b1 === 0xfe) return { encoding: 'utf-16le', bomLength: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { encoding: 'utf-16be', bomLength: 2 };
  const utf16 = utf16WithoutBom(data);
  if (utf16 !== null) return { encoding: utf16, bomLength: 0 };
  if (isValidUtf8(data, partial)) return { encoding: 'utf-8', bomLength: 0 };
  return { encoding: declaredCharset(data) ?? 'windows-1252', bomLength: 0 };
}

/** windows-1252's 0x80-0x9F (where it differs from Latin-1); undefined bytes stay C1 controls. */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Decoded by hand: Node 20's TextDecoder('windows-1252') silently decodes Latin-1, which turns
 * curly quotes, dashes and the euro sign into invisible C1 control characters.
 */
function decodeWindows1252(data: Uint8Array): string {
  const CHUNK = 8192;
  let out = '';
  for (let i = 0; i < data.length; i += CHUNK) {
    const codes = Array.from(data.subarray(i, i + CHUNK), (b) =>
      b >= 0x80 && b <= 0x9f ? CP1252_HIGH.charCodeAt(b - 0x80) : b,
    );
    out += String.fromCharCode(...codes);
  }
  return out;
}

function decodeWith(data: Uint8Array, detected: DetectedEncoding, partial: boolean): string {
  if (detected.encoding === 'windows-1252') return decodeWindows1252(data);
  let body = data.subarray(detected.bomLength);
  if (detected.encoding === 'utf-16le' || detected.encoding === 'utf-16be') {
    // A head cut in the middle of a code unit would end in a lone byte; drop it.
    if (partial && body.length % 2 === 1) body = body.subarray(0, body.length - 1);
  }
  // ignoreBOM: the BOM was already skipped above; a second U+FEFF would be real content.
  return new TextDecoder(detected.encoding, { ignoreBOM: true }).decode(body, { stream: partial });
}

/**
 * A decoder of consecutive slices of one file in the encoding `detected` (found from its head): a
 * character cut between two slices is completed by the next; `more` is false for the last slice.
 */
export function streamDecoder(detected: DetectedEncoding): (slice: Uint8Array, more: boolean) => string {
  if (detected.encoding === 'windows-1252') return (slice) => decodeWindows1252(slice);
  const decoder = new TextDecoder(detected.encoding, { ignoreBOM: true });
  let skip = detected.bomLength;
  return (slice, more) => {
    const body = slice.subarray(Math.min(skip, slice.length));
    skip = Math.max(0, skip - slice.length);
    return decoder.decode(body, { stream: more });
  };
}

/** Decodes a whole text upload. */
export function decodeText(data: Uint8Array): string {
  return decodeWith(data, detectEncoding(data), false);
}

/** Decodes the first bytes of an upload (sniffing): tolerates a character cut off at the end. */
export function decodeHead(data: Uint8Array): { text: string; encoding: TextEncodingName } {
  const detected = detectEncoding(data, true);
  return { text: decodeWith(data, detected, true), encoding: detected.encoding };
}
