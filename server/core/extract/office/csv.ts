/**
 * CSV -> one table block. The bytes are decoded as the text formats are (flow/decode.ts: a BOM wins, then
 * UTF-8, then windows-1252) and streamed to Papa Parse a slice at a time, which finds the delimiter
 * (comma, semicolon, tab or pipe) from the first rows and reads quoted fields across lines. Each row is
 * counted as it is parsed (sheet-grid.ts), so a file of a million rows stops at the first row past
 * `maxSheetRows`, having held no more than that.
 */
import { Readable } from 'node:stream';
import Papa from 'papaparse';
import { detectEncoding, streamDecoder } from '../flow/decode.js';
import { makeFlowResult } from '../flow/result.js';
import { DEFAULT_LIMITS, type DocumentLimits } from '../limits.js';
import type { ExtractionResult } from '../types.js';
import { inferKind, SheetBudget, SheetRows, type SparseRow } from './sheet-grid.js';

/** Bytes decoded and handed to the parser at a time. */
const SLICE = 1024 * 1024;

export const CSV_DELIMITERS = [',', ';', '\t', '|'];

/**
 * Bytes one record may span. Papa Parse keeps an unfinished record and parses it again with each new slice,
 * so a quote that never closes would hold (and rescan) the rest of the file as one growing string.
 */
const MAX_RECORD_BYTES = 8 * 1024 * 1024;

/** The file's text, a slice at a time; `sinceRecord.bytes` is reset by the parser at each record it ends. */
function* decodedSlices(data: Uint8Array, sinceRecord: { bytes: number }): Generator<string> {
  const decode = streamDecoder(detectEncoding(data.subarray(0, 64 * 1024), true));
  for (let at = 0; at < data.length; at += SLICE) {
    if (sinceRecord.bytes > MAX_RECORD_BYTES) {
      throw Object.assign(
        new Error(
          `Not a readable CSV file: a record runs past ${MAX_RECORD_BYTES / 2 ** 20} MB (a quote that never closes?)`,
        ),
        {
          code: 'CSV_INVALID',
        },
      );
    }
    const slice = data.subarray(at, at + SLICE);
    sinceRecord.bytes += slice.length;
    const text = decode(slice, at + SLICE < data.length);
    if (text !== '') yield text;
  }
}

export function extractCsv(data: Uint8Array, limits: DocumentLimits = DEFAULT_LIMITS): Promise<ExtractionResult> {
  const rows = new SheetRows(new SheetBudget(limits));
  const warnings: string[] = [];
  let delimiter = ',';
  let failure: unknown = null;
  const sinceRecord = { bytes: 0 };
  const input = Readable.from(decodedSlices(data, sinceRecord), { objectMode: true });
  // The slices' own error (a record too long) is the failure; Papa Parse hears of it as a stream error too.
  input.on('error', (err) => void (failure ??= err));
  return new Promise((resolve, reject) => {
    Papa.parse<string[]>(input as unknown as File, {
      delimitersToGuess: CSV_DELIMITERS,
      skipEmptyLines: 'greedy',
      step(result, parser) {
        sinceRecord.bytes = 0;
        delimiter = result.meta.delimiter;
        for (const e of result.errors) {
          // An undetectable delimiter is a one-column file; the rest (an unclosed quote) is worth saying.
          if (e.code !== 'UndetectableDelimiter')
            warnings.push(`CSV: ${e.message}${e.row !== undefined ? ` (row ${e.row + 1})` : ''}`);
        }
        try {
          rows.ensureRoom(result.data.length);
          const row: SparseRow = result.data.map((text, column) => [
            column,
            { text, kind: inferKind(text, delimiter === ';') },
          ]);
          rows.add(row);
        } catch (err) {
          failure = err;
          parser.abort();
        }
      },
      complete() {
        if (failure) return reject(failure);
        try {
          const table = rows.block();
          resolve(makeFlowResult('csv', table ? [table] : [], undefined, warnings.slice(0, 20)));
        } catch (err) {
          reject(err);
        }
      },
      error(err) {
        reject(failure ?? Object.assign(new Error(`Not a readable CSV file: ${err.message}`), { code: 'CSV_INVALID' }));
      },
    });
  });
}
