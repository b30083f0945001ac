import type { AddedTokenJson } from './tokenizer-json.js';
import { headOf, type Piece } from './tokenizer-pre-tokenizers.js';
import { literalRegex } from './tokenizer-regex.js';

/** A run of text, or an added token's id found in it. */
export type Part = Piece | { id: number };

const WORD_CHAR = /[\p{Alphabetic}\p{Nd}\p{Nl}\p{No}_]/u;
const TRAILING_SPACE = /\p{White_Space}+$/u;
const LEADING_SPACE = /^\p{White_Space}+/u;

/**
 * Finds the added tokens of a tokenizer.json in a text, as the crate's AddedVocabulary does: leftmost, longest
 * first; a `single_word` token only between non-word characters; `lstrip`/`rstrip` take the whitespace beside
 * the token into it. Each run keeps its `head` (tokenizer-pre-tokenizers.ts).
 */
export function addedTokenSplitter(tokens: readonly AddedTokenJson[], contentOf: (t: AddedTokenJson) => string) {
  const byContent = new Map<string, AddedTokenJson>();
  for (const t of tokens) {
    const content = contentOf(t);
    if (content) byContent.set(content, t);
  }
  const contents = [...byContent.keys()].sort((a, b) => b.length - a.length);
  // An alternation tried longest first finds, at the leftmost place, the longest token there.
  const regex =
    contents.length > 0 ? new RegExp(contents.map((c) => literalRegex(c).source).join('|'), 'gu') : undefined;

  return (part: Piece): Part[] => {
    const { text } = part;
    if (!regex || !text) return [part];
    const out: Part[] = [];
    let done = 0;
    for (const m of text.matchAll(regex)) {
      const token = byContent.get(m[0])!;
      let start = m.index ?? 0;
      let stop = start + m[0].length;
      if (token.single_word) {
        const before = text.slice(0, start);
        const after = text.slice(stop);
        const lastBefore = Array.from(before.slice(-2)).at(-1);
        const firstAfter = String.fromCodePoint(after.codePointAt(0) ?? 0x20);
        if ((lastBefore && WORD_CHAR.test(lastBefore)) || (after && WORD_CHAR.test(firstAfter))) continue;
      }
      if (token.lstrip) {
        const space = TRAILING_SPACE.exec(text.slice(0, start));
        if (space) start = Math.max(space.index, done);
      }
      if (token.rstrip) stop += LEADING_SPACE.exec(text.slice(stop))?.[0].length ?? 0;
      if (done < start) out.push({ text: text.slice(done, start), head: headOf(part, done, start) });
      out.push({ id: token.id });
      done = stop;
    }
    if (done < text.length) out.push({ text: text.slice(done), head: headOf(part, done, text.length) });
    return out;
  };
}
