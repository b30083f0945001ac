import { readFileSync } from 'node:fs';
import { addedTokenSplitter, type Part } from './added-tokens.js';
import { invalid, type TokenizerJson } from './tokenizer-json.js';
import { modelOf } from './tokenizer-model.js';
import { type Normalize, normalizerOf } from './tokenizer-normalizers.js';
import { type Piece, preTokenizerOf } from './tokenizer-pre-tokenizers.js';
import { type Template, templateOf } from './tokenizer-post-processors.js';

export interface Encoding {
  ids: number[];
  attentionMask: number[];
  tokenTypeIds: number[];
}

export interface Tokenizer {
  /** The text's ids between the post-processor's special tokens, truncated so the whole is at most `maxLen` ids. */
  encode(text: string, maxLen: number): Encoding;
  /** How many tokens the text takes, without the special tokens; what a chunker budgets with. */
  count(text: string): number;
  /** One past the highest id it gives: the embedding table must have at least this many rows. */
  readonly vocabSize: number;
  /** The model of its tokenizer.json: WordPiece, Unigram or BPE. */
  readonly model: string;
}

/**
 * Runs a Hugging Face tokenizer.json as the Rust `tokenizers` crate does, for ids (no offsets): added tokens
 * found in the raw text, then normalizer, added tokens found in the normalised text, pre-tokenizer, model
 * (WordPiece, Unigram, BPE), post-processor's special tokens. test/core/tokenizers.test.ts compares its ids
 * with the crate's (the Python package) for tokenizers of every kind. Throws a TokenizerError naming the
 * component it does not run.
 */
export function createTokenizer(tokenizerJsonPath: string): Tokenizer {
  let spec: TokenizerJson;
  try {
    spec = JSON.parse(readFileSync(tokenizerJsonPath, 'utf8')) as TokenizerJson;
  } catch (err) {
    throw invalid(`it is not JSON (${(err as Error).message})`);
  }
  return tokenizerOf(spec);
}

export function tokenizerOf(spec: TokenizerJson): Tokenizer {
  if (!spec || typeof spec.model !== 'object' || spec.model === null) throw invalid('it has no model');
  const model = modelOf(spec.model);
  const normalize: Normalize = spec.normalizer ? normalizerOf(spec.normalizer) : (text) => text;
  const preTokenize = spec.pre_tokenizer ? preTokenizerOf(spec.pre_tokenizer) : (piece: Piece) => [piece];
  const template = templateFor(spec, model.idOf);
  const added = spec.added_tokens ?? [];
  const rawSplit = addedTokenSplitter(
    added.filter((t) => !t.normalized),
    (t) => t.content,
  );
  const normalizedSplit = addedTokenSplitter(
    added.filter((t) => t.normalized),
    (t) => normalize(t.content),
  );
  const vocabSize = Math.max(model.size, ...added.map((t) => t.id + 1), ...template.before, ...template.after);

  // How much of the normalised piece the text's first character became (Metaspace's "first" prepends before
  // any of it): nothing when the normalizer drops it, as Strip drops a leading space; three for NFKC's ½.
  const headAfterNormalizing = (piece: Piece): number =>
    piece.head > 0 ? normalize(piece.text.slice(0, piece.head)).length : 0;

  function tokenize(text: string): number[] {
    const out: number[] = [];
    const push = (part: Part, next: (piece: Piece) => void) => {
      if ('id' in part) out.push(part.id);
      else if (part.text) next(part);
    };
    const first = text.length > 0 ? String.fromCodePoint(text.codePointAt(0)!).length : 0;
    for (const raw of rawSplit({ text, head: first }))
      push(raw, (piece) => {
        for (const part of normalizedSplit({
          text: normalize(piece.text),
          head: headAfterNormalizing(piece),
        }))
          push(part, (p) => {
            for (const word of preTokenize(p)) if (word.text) model.tokenize(word.text, out);
          });
      });
    return out;
  }

  return {
    vocabSize,
    model: spec.model.type,
    encode(text, maxLen) {
      const room = maxLen - template.before.length - template.after.length;
      if (room < 0) throw new Error(`maxLen must leave room for the special tokens (${template.names.join(' ')})`);
      const body = tokenize(text).slice(0, room);
      const ids = [...template.before, ...body, ...template.after];
      return {
        ids,
        attentionMask: ids.map(() => 1),
        tokenTypeIds: [...template.beforeTypes, ...body.map(() => template.bodyType), ...template.afterTypes],
      };
    },
    count: (text) => tokenize(text).length,
  };
}

/**
 * The post-processor's template; a WordPiece tokenizer.json without one gets BERT's [CLS] … [SEP] (what Lectern
 * always gave such files), any other model none, as the crate gives.
 */
function templateFor(spec: TokenizerJson, idOf: (token: string) => number | undefined): Template {
  if (spec.post_processor || spec.model.type !== 'WordPiece') return templateOf(spec.post_processor);
  const cls = idOf('[CLS]');
  const sep = idOf('[SEP]');
  if (cls === undefined || sep === undefined) throw invalid('the vocabulary has no [CLS] or [SEP]');
  return templateOf({ type: 'BertProcessing', cls: ['[CLS]', cls], sep: ['[SEP]', sep] });
}
