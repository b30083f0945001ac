import { invalid } from './tokenizer-json.js';

/**
 * sentencepiece's normalisation rules (nmt_nfkc and the like) as tokenizer.json carries them in a Precompiled
 * normalizer: a little-endian u32 byte length, a Darts double-array trie over UTF-8 bytes of that length, then
 * the replacement strings, each ended by a NUL; a leaf of the trie holds the offset of its replacement.
 *
 * Applied as the `tokenizers` crate applies it (and not quite as sentencepiece's normalizer.cc does): per
 * extended grapheme cluster shorter than 6 UTF-8 bytes, the whole cluster is replaced by the rule of its
 * shortest matching prefix; otherwise character by character. Ids only match the reference that way.
 */
export function precompiledNormalizer(base64: string): (text: string) => string {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length < 4) throw invalid('the Precompiled normalizer has no charsmap');
  const trieBytes = bytes.readUInt32LE(0);
  if (trieBytes % 4 !== 0 || 4 + trieBytes > bytes.length || trieBytes === 0)
    throw invalid('the Precompiled charsmap is cut short');
  const trie = new Uint32Array(trieBytes / 4);
  for (let i = 0; i < trie.length; i++) trie[i] = bytes.readUInt32LE(4 + i * 4);
  const table = bytes.subarray(4 + trieBytes);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const replacements = new Map<number, string>();
  const replacementAt = (at: number): string => {
    let text = replacements.get(at);
    if (text === undefined) {
      let end = at;
      while (end < table.length && table[end] !== 0) end++;
      text = decoder.decode(table.subarray(at, end));
      replacements.set(at, text);
    }
    return text;
  };
  const encoder = new TextEncoder();
  const unit = (pos: number): number => {
    const u = trie[pos];
    if (u === undefined) throw invalid('the Precompiled charsmap points outside its trie');
    return u;
  };
  const offset = (u: number): number => (u >>> 10) << ((u & 0x200) >>> 6);

  /** The replacement of the shortest prefix of `chunk` the trie holds, if any. */
  function transform(chunk: Uint8Array): string | undefined {
    let pos = offset(unit(0));
    for (const byte of chunk) {
      if (byte === 0) return undefined;
      pos ^= byte;
      const u = unit(pos);
      if ((u & 0x800000ff) !== byte) return undefined;
      pos ^= offset(u);
      if ((u >>> 8) & 1) return replacementAt(unit(pos) & 0x7fffffff);
    }
    return undefined;
  }

  const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  // Text repeats its graphemes: each is looked up once.
  const seen = new Map<string, string>();
  function normalizeGrapheme(g: string): string {
    const bytesOf = encoder.encode(g);
    if (bytesOf.length < 6) {
      const whole = transform(bytesOf);
      if (whole !== undefined) return whole;
    }
    let out = '';
    for (const c of g) out += transform(encoder.encode(c)) ?? c;
    return out;
  }

  return (text) => {
    let out = '';
    for (const { segment } of graphemes.segment(text)) {
      let norm = seen.get(segment);
      if (norm === undefined) {
        norm = normalizeGrapheme(segment);
        if (seen.size < 100_000) seen.set(segment, norm);
      }
      out += norm;
    }
    return out;
  };
}
