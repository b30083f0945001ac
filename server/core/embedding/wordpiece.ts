import type { TokenizerModel } from './tokenizer-model.js';
import { invalid, type ModelJson } from './tokenizer-json.js';

/**
 * BERT's WordPiece model: each word greedily cut into the longest pieces of the vocabulary from the left,
 * pieces after the first carrying the continuing prefix (`##`); a word with a piece the vocabulary lacks, or
 * longer than `max_input_chars_per_word`, is one unknown token. Rule for rule the Rust `tokenizers` crate's,
 * pinned by test/core/embedding.test.ts.
 */
export function wordPieceModel(spec: ModelJson): TokenizerModel {
  if (Array.isArray(spec.vocab)) throw invalid('the WordPiece vocabulary is not a map of tokens to ids');
  const vocab = new Map(Object.entries(spec.vocab));
  const unkId = spec.unk_token ? vocab.get(spec.unk_token) : undefined;
  if (unkId === undefined) throw invalid(`the WordPiece vocabulary has no unknown token ${spec.unk_token ?? ''}`);
  const prefix = spec.continuing_subword_prefix ?? '##';
  const maxWordChars = spec.max_input_chars_per_word ?? 100;

  function tokenize(word: string, out: number[]): void {
    const chars = Array.from(word);
    if (chars.length > maxWordChars) {
      out.push(unkId!);
      return;
    }
    const pieces: number[] = [];
    for (let start = 0; start < chars.length; ) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const sub = (start > 0 ? prefix : '') + chars.slice(start, end).join('');
        found = vocab.get(sub);
        if (found !== undefined) break;
        end -= 1;
      }
      if (found === undefined) {
        out.push(unkId!);
        return;
      }
      pieces.push(found);
      start = end;
    }
    out.push(...pieces);
  }

  return { tokenize, idOf: (token) => vocab.get(token), size: vocab.size };
}
