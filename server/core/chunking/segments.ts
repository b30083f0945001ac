import { lineStarts, sentenceStarts, trimmedEnd, wordStarts } from './sentences.js';
import { countTokens, splitUnbroken } from './tokens.js';

/** A piece of one block's text. `sep` is the original text between the previous piece and this one. */
export interface Segment {
  text: string;
  sep: string;
  tokens: number;
}

/** Prose splits at sentences; `lines` (code, tables) at line ends, keeping indentation. */
export type SplitMode = 'prose' | 'lines';

/**
 * Splits `text` into segments of at most `max` tokens: sentences (or lines), then words for a unit still
 * too long, then cuts inside a word as the last resort. Joining each segment to the previous one with its
 * `sep` gives back the text exactly.
 */
export function splitToBudget(text: string, max: number, mode: SplitMode): Segment[] {
  const out: Segment[] = [];
  let prevEnd = -1;
  const push = (start: number, end: number, tokens?: number): void => {
    const piece = text.slice(start, end);
    out.push({ text: piece, sep: prevEnd < 0 ? '' : text.slice(prevEnd, start), tokens: tokens ?? countTokens(piece) });
    prevEnd = end;
  };
  const starts = mode === 'lines' ? lineStarts(text) : sentenceStarts(text);
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k]!;
    const end = trimmedEnd(text, start, starts[k + 1] ?? text.length);
    const tokens = countTokens(text.slice(start, end));
    if (tokens <= max) {
      push(start, end, tokens);
      continue;
    }
    const unit = text.slice(start, end);
    // Indentation at the start of a line stays with its first word.
    const words = wordStarts(unit);
    if (words.length > 0) words[0] = 0;
    for (let w = 0; w < words.length; w++) {
      const wStart = start + words[w]!;
      const wEnd = trimmedEnd(text, wStart, start + (words[w + 1] ?? unit.length));
      const wTokens = countTokens(text.slice(wStart, wEnd));
      if (wTokens <= max) {
        push(wStart, wEnd, wTokens);
        continue;
      }
      let offset = wStart;
      for (const fragment of splitUnbroken(text.slice(wStart, wEnd), max)) {
        push(offset, offset + fragment.length);
        offset += fragment.length;
      }
    }
  }
  return out;
}
