import { byteLevelChars, GPT2_SPLIT } from './byte-level.js';
import { type PreTokenizerJson, type SplitBehaviour, unsupported } from './tokenizer-json.js';
import { isWhitespace, patternRegex } from './tokenizer-normalizers.js';

/**
 * A piece of the text on its way to the model. `head`: how many of its leading UTF-16 units stand for the
 * text's first character (0 when it begins elsewhere). Metaspace's "first" prepend scheme puts its ▁ before a
 * piece whose original offset is 0, which is every piece cut from that character's normalised form (NFKC
 * makes ½ three characters).
 */
export interface Piece {
  text: string;
  head: number;
}

/** The head of the part [a, b) of a piece. */
export const headOf = (piece: Piece, a: number, b: number): number =>
  a < piece.head ? Math.min(piece.head, b) - a : 0;

export type PreTokenize = (piece: Piece) => Piece[];

/** [start, end, matched]: the text cut into the pattern's matches and the runs between them, in order. */
type Span = [number, number, boolean];

const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
const PUNCT = /\p{P}/u;
const NUMERIC = /\p{N}/u;
/** The Rust regex crate's Unicode \w and \s, which the Whitespace pre-tokenizer is written in. */
const WORDS =
  /[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]+|[^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}\p{White_Space}]+/gu;

const isPunctuation = (c: string): boolean => ASCII_PUNCT.test(c) || PUNCT.test(c);

function regexSpans(text: string, regex: RegExp): Span[] {
  const spans: Span[] = [];
  let at = 0;
  for (const m of text.matchAll(regex)) {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    if (start > at) spans.push([at, start, false]);
    spans.push([start, end, true]);
    at = end;
  }
  if (at < text.length) spans.push([at, text.length, false]);
  return spans;
}

/** Every character the test holds is a match of its own, as the crate's character patterns split. */
function charSpans(text: string, test: (c: string) => boolean): Span[] {
  const spans: Span[] = [];
  let at = 0;
  let i = 0;
  for (const c of text) {
    if (test(c)) {
      if (at < i) spans.push([at, i, false]);
      spans.push([i, i + c.length, true]);
      at = i + c.length;
    }
    i += c.length;
  }
  if (at < text.length) spans.push([at, text.length, false]);
  return spans;
}

/** The crate's SplitDelimiterBehavior over the spans: the ranges kept. */
function applyBehaviour(spans: Span[], behaviour: SplitBehaviour): [number, number][] {
  switch (behaviour) {
    case 'Removed':
      return spans.filter((s) => !s[2]).map(([a, b]) => [a, b]);
    case 'Isolated':
      return spans.map(([a, b]) => [a, b]);
    case 'Contiguous':
    case 'MergedWithPrevious': {
      const out: [number, number][] = [];
      let previous = false;
      for (const [a, b, matched] of spans) {
        const merge = behaviour === 'Contiguous' ? matched === previous : matched && !previous;
        const last = out[out.length - 1];
        if (merge && last) last[1] = b;
        else out.push([a, b]);
        previous = matched;
      }
      return out;
    }
    case 'MergedWithNext': {
      const out: [number, number][] = [];
      let previous = false;
      for (let i = spans.length - 1; i >= 0; i--) {
        const [a, b, matched] = spans[i]!;
        const last = out[out.length - 1];
        if (matched && !previous && last) last[0] = a;
        else out.push([a, b]);
        previous = matched;
      }
      return out.reverse();
    }
  }
}

function cut(piece: Piece, spans: Span[], behaviour: SplitBehaviour): Piece[] {
  const out: Piece[] = [];
  for (const [a, b] of applyBehaviour(spans, behaviour))
    if (b > a) out.push({ text: piece.text.slice(a, b), head: headOf(piece, a, b) });
  return out;
}

/** BERT's: whitespace drops, each punctuation character stands alone. One pass, as WordPiece models need it fast. */
function bertPreTokenize(piece: Piece): Piece[] {
  const out: Piece[] = [];
  const text = piece.text;
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > start) out.push({ text: text.slice(start, end), head: headOf(piece, start, end) });
  };
  for (const c of text) {
    const next = i + c.length;
    if (isWhitespace(c)) {
      flush(i);
      start = next;
    } else if (isPunctuation(c)) {
      flush(i);
      out.push({ text: c, head: headOf(piece, i, next) });
      start = next;
    }
    i = next;
  }
  flush(text.length);
  return out;
}

function metaspace(spec: PreTokenizerJson): PreTokenize {
  const replacement = spec.replacement ?? '\u2581';
  const scheme = spec.prepend_scheme ?? (spec.add_prefix_space === false ? 'never' : 'always');
  const split = spec.split ?? true;
  return (piece) => {
    let text = piece.text.replaceAll(' ', replacement);
    let head = piece.head > 0 ? piece.text.slice(0, piece.head).replaceAll(' ', replacement).length : 0;
    if ((scheme === 'always' || (scheme === 'first' && head > 0)) && !text.startsWith(replacement)) {
      text = replacement + text;
      if (head > 0) head += replacement.length;
    }
    const whole = { text, head };
    return split
      ? cut(
          whole,
          charSpans(text, (c) => c === replacement),
          'MergedWithNext',
        )
      : [whole];
  };
}

function byteLevel(spec: PreTokenizerJson): PreTokenize {
  const prefix = spec.add_prefix_space ?? true;
  const useRegex = spec.use_regex ?? true;
  return (piece) => {
    const prefixed = prefix && !piece.text.startsWith(' ');
    const whole = prefixed ? { text: ` ${piece.text}`, head: piece.head > 0 ? piece.head + 1 : 0 } : piece;
    const pieces = useRegex ? cut(whole, regexSpans(whole.text, GPT2_SPLIT), 'Isolated') : [whole];
    return pieces.map((p) => ({ text: byteLevelChars(p.text), head: byteLevelChars(p.text.slice(0, p.head)).length }));
  };
}

export function preTokenizerOf(spec: PreTokenizerJson): PreTokenize {
  switch (spec.type) {
    case 'Sequence': {
      const steps = (spec.pretokenizers ?? []).map(preTokenizerOf);
      return (piece) => steps.reduce<Piece[]>((pieces, step) => pieces.flatMap(step), [piece]);
    }
    case 'BertPreTokenizer':
      return bertPreTokenize;
    case 'Whitespace':
      return wordsOf;
    case 'WhitespaceSplit':
      return (piece) => cut(piece, charSpans(piece.text, isWhitespace), 'Removed');
    case 'Punctuation': {
      const behaviour = spec.behavior ?? 'Isolated';
      return (piece) => cut(piece, charSpans(piece.text, isPunctuation), behaviour);
    }
    case 'Digits': {
      const behaviour = spec.individual_digits ? 'Isolated' : 'Contiguous';
      return (piece) =>
        cut(
          piece,
          charSpans(piece.text, (c) => NUMERIC.test(c)),
          behaviour,
        );
    }
    case 'Metaspace':
      return metaspace(spec);
    case 'ByteLevel':
      return byteLevel(spec);
    case 'Split': {
      const regex = patternRegex(spec.pattern, 'pre-tokenizer Split');
      const behaviour = spec.behavior ?? 'Isolated';
      const invert = spec.invert ?? false;
      return (piece) =>
        cut(
          piece,
          regexSpans(piece.text, regex).map(([a, b, m]) => [a, b, m !== invert]),
          behaviour,
        );
    }
    default:
      throw unsupported(`pre-tokenizer ${spec.type}`);
  }
}

/** The Whitespace pre-tokenizer's words: runs of word characters, runs of other non-space characters. */
function wordsOf(piece: Piece): Piece[] {
  const out: Piece[] = [];
  for (const m of piece.text.matchAll(WORDS)) {
    const at = m.index ?? 0;
    out.push({ text: m[0], head: headOf(piece, at, at + m[0].length) });
  }
  return out;
}
