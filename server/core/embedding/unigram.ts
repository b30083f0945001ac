import { invalid, type ModelJson } from './tokenizer-json.js';
import type { TokenizerModel } from './tokenizer-model.js';

/** sentencepiece's penalty below the lowest piece score for a character no piece covers. */
const UNK_PENALTY = 10;

const encoder = new TextEncoder();

/**
 * sentencepiece's Unigram model (XLM-R, multilingual-e5, T5…): the segmentation of each word whose pieces'
 * scores add up highest, found by Viterbi over every vocabulary piece that starts at each character. A
 * character no piece starts with is unknown, scored below the lowest piece; unknown characters next to each
 * other make one unknown token, or their UTF-8 bytes (`<0x41>`) with byte_fallback. As the `tokenizers`
 * crate's `encode_optimized`, ties included (the first, shortest candidate keeps a tie).
 */
export function unigramModel(spec: ModelJson): TokenizerModel {
  if (!Array.isArray(spec.vocab)) throw invalid('the Unigram vocabulary is not a list of [piece, score]');
  const ids = new Map<string, number>();
  const scores = new Float64Array(spec.vocab.length);
  let minScore = Number.POSITIVE_INFINITY;
  let longest = 0;
  spec.vocab.forEach(([piece, score], id) => {
    if (typeof piece !== 'string' || typeof score !== 'number')
      throw invalid(`Unigram piece ${id} is not [piece, score]`);
    ids.set(piece, id);
    scores[id] = score;
    if (score < minScore) minScore = score;
    if (piece.length > longest) longest = piece.length;
  });
  const unkId = spec.unk_id ?? undefined;
  if (unkId !== undefined && (unkId < 0 || unkId >= spec.vocab.length))
    throw invalid(`Unigram unk_id ${unkId} is out of the vocabulary`);
  const unkScore = minScore - UNK_PENALTY;
  const byteFallback = spec.byte_fallback ?? false;

  /** The best segmentation's pieces, unknown runs fused into one string each. */
  function segment(word: string): { text: string; unknown: boolean }[] {
    const n = word.length;
    // Per end position (UTF-16 index): best score, where its last piece starts (-1: unreached), its id.
    const best = new Float64Array(n + 1);
    const from = new Int32Array(n + 1).fill(-1);
    const idAt = new Int32Array(n + 1);
    for (let start = 0; start < n; ) {
      const charLen = (word.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
      const base = best[start]!;
      let single = false;
      const limit = Math.min(n, start + longest);
      for (let end = start + 1; end <= limit; end++) {
        const id = ids.get(word.slice(start, end));
        if (id === undefined) continue;
        const score = base + scores[id]!;
        if (from[end] === -1 || score > best[end]!) {
          best[end] = score;
          from[end] = start;
          idAt[end] = id;
        }
        if (end - start === charLen) single = true;
      }
      if (!single) {
        if (unkId === undefined) throw invalid('the Unigram model has no unknown token for a character it lacks');
        const end = start + charLen;
        const score = base + unkScore;
        if (from[end] === -1 || score > best[end]!) {
          best[end] = score;
          from[end] = start;
          idAt[end] = unkId;
        }
      }
      start += charLen;
    }
    const pieces: { text: string; unknown: boolean }[] = [];
    for (let end = n; end > 0; ) {
      const start = from[end]!;
      const text = word.slice(start, end);
      const unknown = idAt[end] === unkId;
      const last = pieces[pieces.length - 1];
      if (unknown && last?.unknown) last.text = text + last.text;
      else pieces.push({ text, unknown });
      end = start;
    }
    return pieces.reverse();
  }

  function tokenize(word: string, out: number[]): void {
    if (!word) return;
    for (const { text } of segment(word)) {
      const id = ids.get(text);
      if (id !== undefined) {
        out.push(id);
        continue;
      }
      if (byteFallback) {
        const bytes = Array.from(encoder.encode(text), (b) =>
          ids.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`),
        );
        if (bytes.every((b) => b !== undefined)) {
          out.push(...(bytes as number[]));
          continue;
        }
      }
      out.push(unkId!);
    }
  }

  return { tokenize, idOf: (token) => ids.get(token), size: spec.vocab.length };
}
