import { bpeModel } from './bpe.js';
import { type ModelJson, unsupported } from './tokenizer-json.js';
import { unigramModel } from './unigram.js';
import { wordPieceModel } from './wordpiece.js';

/** The model of a tokenizer.json: a pre-tokenized word to ids. */
export interface TokenizerModel {
  /** Appends the word's ids to `out`. */
  tokenize(word: string, out: number[]): void;
  idOf(token: string): number | undefined;
  /** Entries of the vocabulary. */
  readonly size: number;
}

export function modelOf(spec: ModelJson): TokenizerModel {
  switch (spec.type) {
    case 'WordPiece':
      return wordPieceModel(spec);
    case 'Unigram':
      return unigramModel(spec);
    case 'BPE':
      return bpeModel(spec);
    default:
      throw unsupported(`model ${spec.type}`);
  }
}
