/**
 * What an XLSX cell shows, from what it stores: Excel keeps dates as day numbers and tells them apart from
 * other numbers only by the cell's number format, so the workbook's styles decide which numbers are dates.
 */
import type { Cell } from './sheet-grid.js';

/** Built-in number formats that are dates or times (ECMA-376 18.8.30, with the CJK ones). */
const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56,
  57, 58,
]);

/** Whether a custom format code shows a date or time: d, m, y, h or s outside quotes, escapes and [colour] brackets. */
export function isDateFormat(code: string): boolean {
  const bare =
    code
      .replace(/"[^"]*"/g, '')
      .replace(/\\./g, '')
      .replace(/\[(?![hms]+\])[^\]]*\]/gi, '') // [Red], [$-409]; [h], [mm], [ss] (elapsed time) stay
      .split(';')[0] ?? '';
  return /[dmyhs]/i.test(bare);
}

export interface NumberFormats {
  /** Per cell style (the `s` attribute, an index into cellXfs): whether it shows a date. */
  dateStyles: boolean[];
  date1904: boolean;
}

export function styleIsDate(formatId: number, custom: Map<number, string>): boolean {
  const code = custom.get(formatId);
  return code !== undefined ? isDateFormat(code) : BUILTIN_DATE_FORMATS.has(formatId);
}

const DAY_MS = 86_400_000;
/** Day 0 of the 1900 system is 1899-12-31, but Excel counts a 29 February 1900 that never was: from day 61 on, the epoch is a day earlier. */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** A day number as ISO 8601: a date, a time of day (below 1), or both. */
export function serialToIso(serial: number, date1904: boolean): string {
  const days = !date1904 && serial < 61 && serial >= 1 ? serial + 1 : serial;
  const ms = Math.round((date1904 ? EPOCH_1904 : EPOCH_1900) + days * DAY_MS);
  const iso = new Date(Math.round(ms / 1000) * 1000).toISOString();
  const date = iso.slice(0, 10);
  const time = iso.slice(11, 19);
  if (serial < 1 && serial >= 0) return time;
  return time === '00:00:00' ? date : `${date} ${time}`;
}

/** Excel writes characters XML cannot hold (a carriage return, say) as `_xHHHH_`; `_x005F_` escapes a literal one. */
export function unescapeOoxml(text: string): string {
  return text.includes('_x')
    ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    : text;
}

/** Numbers as Excel shows them in General: 15 significant digits (0.1 + 0.2 is 0.3). */
function showNumber(value: number): string {
  return String(Number(value.toPrecision(15)));
}

/**
 * A cell from its type attribute (`t`), style and stored value (`<v>`, or the inline string's text).
 * `shared` resolves shared-string indices. Errors (#DIV/0!) are shown as text.
 */
export function cellValue(
  type: string | undefined,
  style: number,
  raw: string,
  shared: readonly string[],
  formats: NumberFormats,
): Cell {
  switch (type) {
    case 's':
      return { text: shared[Number(raw)] ?? '', kind: 'string' };
    case 'inlineStr':
    case 'str':
      return { text: unescapeOoxml(raw), kind: 'string' };
    case 'e':
      return { text: raw, kind: 'string' };
    case 'b':
      return { text: raw.trim() === '1' ? 'TRUE' : 'FALSE', kind: 'boolean' };
    case 'd':
      return {
        text: raw
          .trim()
          .replace('T', ' ')
          .replace(/(?: 00:00:00)?(?:\.\d+)?Z?$/, ''),
        kind: 'date',
      };
    default: {
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(value)) return { text: raw, kind: 'string' };
      if (formats.dateStyles[style]) return { text: serialToIso(value, formats.date1904), kind: 'date' };
      return { text: showNumber(value), kind: Number.isInteger(value) ? 'integer' : 'number' };
    }
  }
}
