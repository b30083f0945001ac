/**
 * GPT-2's byte-level alphabet: every byte of the UTF-8 text becomes a printable character (the bytes that
 * are printable Latin-1 stand for themselves, the others take the characters from U+0100 on), so a BPE
 * vocabulary of characters covers any text without an unknown token.
 */
const BYTE_CHARS: string[] = (() => {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const chars = new Array<string>(256);
  for (const b of printable) chars[b] = String.fromCharCode(b);
  let next = 256;
  for (let b = 0; b < 256; b++) if (chars[b] === undefined) chars[b] = String.fromCharCode(next++);
  return chars;
})();

const encoder = new TextEncoder();

export function byteLevelChars(text: string): string {
  let out = '';
  for (const b of encoder.encode(text)) out += BYTE_CHARS[b];
  return out;
}

/**
 * GPT-2's split (the ByteLevel pre-tokenizer's, run by the crate with Oniguruma): contractions, letters,
 * numbers and other runs each with one leading space, and whitespace not followed by a word. `\s` is
 * Unicode's White_Space, as Oniguruma has it, not JavaScript's.
 */
export const GPT2_SPLIT =
  /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\p{White_Space}\p{L}\p{N}]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;
