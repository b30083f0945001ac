import { invalid, type ModelJson } from './tokenizer-json.js';
import type { TokenizerModel } from './tokenizer-model.js';

const encoder = new TextEncoder();
const byteToken = (b: number): string => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;

/** Words repeat in text: their ids are kept, up to this many words. */
const CACHE_WORDS = 10_000;

/**
 * Byte-pair encoding (GPT-2, RoBERTa, Llama…): a word starts as its characters (with the continuing prefix
 * after the first and the word-end suffix on the last, when the model has them) and the pair of neighbours
 * ranked first in `merges` is merged until none is left, leftmost first among equals. A character outside the
 * vocabulary becomes its UTF-8 bytes (`<0xE4>`) with byte_fallback, else the unknown token (neighbours fused
 * into one with fuse_unk), else nothing, as the `tokenizers` crate does.
 */
export function bpeModel(spec: ModelJson): TokenizerModel {
  if (Array.isArray(spec.vocab)) throw invalid('the BPE vocabulary is not a map of tokens to ids');
  if (spec.dropout) throw invalid('BPE dropout makes ids random: a model to embed with has none');
  const vocab = new Map(Object.entries(spec.vocab));
  const prefix = spec.continuing_subword_prefix ?? '';
  const suffix = spec.end_of_word_suffix ?? '';
  const unkId = spec.unk_token ? vocab.get(spec.unk_token) : undefined;
  if (spec.unk_token && unkId === undefined) throw invalid(`the BPE vocabulary has no unknown token ${spec.unk_token}`);
  const fuseUnk = spec.fuse_unk ?? false;
  const byteFallback = spec.byte_fallback ?? false;
  const ignoreMerges = spec.ignore_merges ?? false;

  // "a b" -> [rank, id of the merged token], keyed by the two ids; a later duplicate wins, as in the crate.
  const merges = new Map<string, [number, number]>();
  (spec.merges ?? []).forEach((m, rank) => {
    const [a, b] = typeof m === 'string' ? splitMerge(m) : m;
    const aId = vocab.get(a);
    const bId = vocab.get(b);
    const merged = vocab.get(a + b.slice(prefix.length));
    if (aId === undefined || bId === undefined || merged === undefined)
      throw invalid(`BPE merge ${rank} (${a} ${b}) names a token the vocabulary lacks`);
    merges.set(`${aId} ${bId}`, [rank, merged]);
  });

  /** The word's characters as ids before any merge. */
  function symbols(word: string): number[] {
    const out: number[] = [];
    const chars = Array.from(word);
    let unk = false;
    chars.forEach((c, i) => {
      const s = (i > 0 ? prefix : '') + c + (i === chars.length - 1 ? suffix : '');
      const id = vocab.get(s);
      if (id !== undefined) {
        out.push(id);
        unk = false;
        return;
      }
      if (byteFallback) {
        const bytes = Array.from(encoder.encode(s), (b) => vocab.get(byteToken(b)));
        if (bytes.every((b) => b !== undefined)) {
          out.push(...(bytes as number[]));
          // The crate keeps a pending unknown token across bytes: they do not end its run.
          return;
        }
      }
      if (unkId === undefined) return;
      if (!(unk && fuseUnk)) out.push(unkId);
      unk = true;
    });
    return out;
  }

  function merge(ids: number[]): number[] {
    for (;;) {
      let bestRank = Number.POSITIVE_INFINITY;
      let at = -1;
      let into = 0;
      for (let i = 0; i + 1 < ids.length; i++) {
        const m = merges.get(`${ids[i]} ${ids[i + 1]}`);
        if (m && m[0] < bestRank) {
          bestRank = m[0];
          at = i;
          into = m[1];
        }
      }
      if (at < 0) return ids;
      ids.splice(at, 2, into);
    }
  }

  const cache = new Map<string, number[]>();
  function tokenize(word: string, out: number[]): void {
    if (!word) return;
    if (ignoreMerges) {
      const whole = vocab.get(word);
      if (whole !== undefined) {
        out.push(whole);
        return;
      }
    }
    let ids = cache.get(word);
    if (!ids) {
      ids = merge(symbols(word));
      if (cache.size < CACHE_WORDS) cache.set(word, ids);
    }
    for (const id of ids) out.push(id);
  }

  return { tokenize, idOf: (token) => vocab.get(token), size: vocab.size };
}

/** Older files write a merge as "a b"; a token never holds the space, which the byte-level alphabet maps away. */
function splitMerge(m: string): [string, string] {
  const at = m.indexOf(' ', 1);
  if (at < 0) throw invalid(`BPE merge "${m}" is not two tokens`);
  return [m.slice(0, at), m.slice(at + 1)];
}
