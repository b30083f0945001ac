/**
 * The parts of a Hugging Face tokenizer.json (the Rust `tokenizers` crate's serialisation) that Lectern reads.
 * Each component is a tagged object (`type`); only the fields the runner uses are named.
 */
export interface TokenizerJson {
  normalizer?: NormalizerJson | null;
  pre_tokenizer?: PreTokenizerJson | null;
  post_processor?: PostProcessorJson | null;
  added_tokens?: AddedTokenJson[];
  model: ModelJson;
}

export interface AddedTokenJson {
  id: number;
  content: string;
  special?: boolean;
  single_word?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
  /** Matched in the normalised text (true) or in the text as given (false). */
  normalized?: boolean;
}

/** A literal or an Oniguruma regular expression, as Replace and Split state their pattern. */
export type PatternJson = { String: string } | { Regex: string };

export interface NormalizerJson {
  type: string;
  normalizers?: NormalizerJson[];
  // BertNormalizer
  clean_text?: boolean;
  handle_chinese_chars?: boolean;
  strip_accents?: boolean | null;
  lowercase?: boolean;
  // Replace
  pattern?: PatternJson;
  content?: string;
  // Prepend, Append
  prepend?: string;
  append?: string;
  // Strip
  strip_left?: boolean;
  strip_right?: boolean;
  // Precompiled: sentencepiece's normalisation rules, base64
  precompiled_charsmap?: string;
}

export type SplitBehaviour = 'Removed' | 'Isolated' | 'MergedWithPrevious' | 'MergedWithNext' | 'Contiguous';

export interface PreTokenizerJson {
  type: string;
  pretokenizers?: PreTokenizerJson[];
  // Metaspace
  replacement?: string;
  prepend_scheme?: 'always' | 'first' | 'never';
  /** Older files say add_prefix_space instead of prepend_scheme. */
  add_prefix_space?: boolean;
  split?: boolean;
  // ByteLevel
  use_regex?: boolean;
  // Split, Punctuation
  pattern?: PatternJson;
  behavior?: SplitBehaviour;
  invert?: boolean;
  // Digits
  individual_digits?: boolean;
}

export type TemplatePiece =
  | { SpecialToken: { id: string; type_id?: number } }
  | { Sequence: { id: string; type_id?: number } };

export interface PostProcessorJson {
  type: string;
  processors?: PostProcessorJson[];
  /** TemplateProcessing: the pieces around a single sequence, and the ids each special token stands for. */
  single?: TemplatePiece[];
  special_tokens?: Record<string, { id: string; ids: number[]; tokens: string[] }>;
  /** BertProcessing, RobertaProcessing: [token, id]. */
  cls?: [string, number];
  sep?: [string, number];
}

export interface ModelJson {
  type: string;
  /** WordPiece and BPE: token to id; Unigram: [piece, score] in id order. */
  vocab: Record<string, number> | [string, number][];
  unk_token?: string | null;
  unk_id?: number | null;
  // WordPiece
  continuing_subword_prefix?: string | null;
  max_input_chars_per_word?: number;
  // BPE
  merges?: (string | [string, string])[];
  end_of_word_suffix?: string | null;
  fuse_unk?: boolean;
  byte_fallback?: boolean;
  ignore_merges?: boolean;
  dropout?: number | null;
}

/**
 * A tokenizer.json Lectern cannot run as the `tokenizers` crate would: `code` tells a component it does not
 * run (MODEL_UNSUPPORTED at import) from a file that is not a tokenizer (MODEL_FILE_INVALID).
 */
export class TokenizerError extends Error {
  constructor(
    readonly code: 'MODEL_UNSUPPORTED' | 'MODEL_FILE_INVALID',
    message: string,
  ) {
    super(message);
  }
}

export const unsupported = (what: string): TokenizerError =>
  new TokenizerError('MODEL_UNSUPPORTED', `${what} is not supported`);
export const invalid = (what: string): TokenizerError => new TokenizerError('MODEL_FILE_INVALID', what);
