import { readFileSync } from 'node:fs';

/**
 * BERT WordPiece tokenizer read from a Hugging Face tokenizer.json (BertNormalizer, BertPreTokenizer,
 * WordPiece model, [CLS] … [SEP] template). It mirrors the Rust `tokenizers` crate rule for rule, because
 * an embedding is only as good as the ids it is given: test/core/embedding.test.ts pins reference ids.
 */
export interface Encoding {
  ids: number[];
  attentionMask: number[];
  tokenTypeIds: number[];
}

export interface WordPieceTokenizer {
  /** [CLS] tokens [SEP] (the special tokens of the post-processor), truncated so the whole encoding is at most `maxLen` ids. */
  encode(text: string, maxLen: number): Encoding;
  /** How many tokens the text takes, without [CLS] and [SEP]; what a chunker budgets with. */
  count(text: string): number;
  readonly vocabSize: number;
}

interface TokenizerJson {
  normalizer?: {
    type: string;
    clean_text?: boolean;
    handle_chinese_chars?: boolean;
    strip_accents?: boolean | null;
    lowercase?: boolean;
  } | null;
  pre_tokenizer?: { type: string } | null;
  added_tokens?: { id: number; content: string; special: boolean }[];
  post_processor?: PostProcessor | null;
  model: {
    type: string;
    vocab: Record<string, number>;
    unk_token: string;
    continuing_subword_prefix?: string;
    max_input_chars_per_word?: number;
  };
}

type TemplatePiece = { SpecialToken: { id: string } } | { Sequence: { id: string } };
interface PostProcessor {
  type: string;
  /** TemplateProcessing: the special tokens around a single sequence. */
  single?: TemplatePiece[];
  /** BertProcessing: [token, id] pairs. */
  cls?: [string, number];
  sep?: [string, number];
}

/**
 * The special tokens put before and after a single text, as the tokenizer's post-processor says: [CLS] …
 * [SEP] for BERT, whatever a TemplateProcessing names for other exports; [CLS] … [SEP] when it says nothing.
 */
function templateOf(post: PostProcessor | null | undefined): { before: string[]; after: string[] } {
  if (post?.type === 'TemplateProcessing' && post.single) {
    const at = post.single.findIndex((p) => 'Sequence' in p);
    const specials = (pieces: TemplatePiece[]) =>
      pieces.flatMap((p) => ('SpecialToken' in p ? [p.SpecialToken.id] : []));
    if (at >= 0) return { before: specials(post.single.slice(0, at)), after: specials(post.single.slice(at + 1)) };
  }
  if (post?.type === 'BertProcessing' && post.cls && post.sep) return { before: [post.cls[0]], after: [post.sep[0]] };
  return { before: ['[CLS]'], after: ['[SEP]'] };
}

const CONTROL = /\p{C}/u;
const WHITESPACE = /\p{White_Space}/u;
const MARK_NONSPACING = /\p{Mn}/u;
const PUNCT = /\p{P}/u;
const ASCII_PUNCT = /[!-/:-@[-`{-~]/;

function isChinese(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b920 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

function isWhitespace(c: string): boolean {
  return c === '\t' || c === '\n' || c === '\r' || WHITESPACE.test(c);
}

export function createWordPieceTokenizer(tokenizerJsonPath: string): WordPieceTokenizer {
  const spec = JSON.parse(readFileSync(tokenizerJsonPath, 'utf8')) as TokenizerJson;
  if (spec.model.type !== 'WordPiece')
    throw new Error(`${tokenizerJsonPath}: model ${spec.model.type} is not WordPiece`);
  const norm = spec.normalizer;
  if (norm && norm.type !== 'BertNormalizer')
    throw new Error(`${tokenizerJsonPath}: normalizer ${norm.type} is not supported`);
  if (spec.pre_tokenizer && spec.pre_tokenizer.type !== 'BertPreTokenizer') {
    throw new Error(`${tokenizerJsonPath}: pre-tokenizer ${spec.pre_tokenizer.type} is not supported`);
  }
  const vocab = new Map(Object.entries(spec.model.vocab));
  const idOf = (token: string): number => {
    const id = vocab.get(token);
    if (id === undefined) throw new Error(`${tokenizerJsonPath}: vocabulary has no ${token}`);
    return id;
  };
  const unkId = idOf(spec.model.unk_token);
  const template = templateOf(spec.post_processor);
  const before = template.before.map(idOf);
  const after = template.after.map(idOf);
  const prefix = spec.model.continuing_subword_prefix ?? '##';
  const maxWordChars = spec.model.max_input_chars_per_word ?? 100;
  const lowercase = norm?.lowercase ?? false;
  const stripAccents = norm?.strip_accents ?? lowercase; // the crate's default: strip when lowercasing
  // Special tokens are matched in the raw text before normalisation, as the crate does.
  const specials = (spec.added_tokens ?? [])
    .filter((t) => t.special)
    .sort((a, b) => b.content.length - a.content.length);

  function normalize(text: string): string {
    let out = '';
    for (const c of text) {
      if (norm?.clean_text) {
        if (c === '\0' || c === '\ufffd' || (c !== '\t' && c !== '\n' && c !== '\r' && CONTROL.test(c))) continue;
        if (isWhitespace(c)) {
          out += ' ';
          continue;
        }
      }
      out += norm?.handle_chinese_chars && isChinese(c.codePointAt(0) ?? 0) ? ` ${c} ` : c;
    }
    if (stripAccents) {
      let stripped = '';
      for (const c of out.normalize('NFD')) if (!MARK_NONSPACING.test(c)) stripped += c;
      out = stripped;
    }
    if (lowercase) {
      // Per character, like the crate: no context-dependent rules such as the Greek final sigma.
      let lower = '';
      for (const c of out) lower += c.toLowerCase();
      out = lower;
    }
    return out;
  }

  function preTokenize(text: string): string[] {
    const words: string[] = [];
    let word = '';
    for (const c of text) {
      if (isWhitespace(c)) {
        if (word) words.push(word);
        word = '';
      } else if (ASCII_PUNCT.test(c) || PUNCT.test(c)) {
        if (word) words.push(word);
        words.push(c);
        word = '';
      } else {
        word += c;
      }
    }
    if (word) words.push(word);
    return words;
  }

  function wordPiece(word: string, out: number[]): void {
    const chars = Array.from(word);
    if (chars.length > maxWordChars) {
      out.push(unkId);
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
        out.push(unkId);
        return;
      }
      pieces.push(found);
      start = end;
    }
    out.push(...pieces);
  }

  function tokenizeSegment(segment: string, out: number[]): void {
    for (const word of preTokenize(normalize(segment))) wordPiece(word, out);
  }

  function tokenize(text: string): number[] {
    const out: number[] = [];
    let rest = text;
    while (rest) {
      let at = -1;
      let hit: { id: number; content: string } | undefined;
      for (const s of specials) {
        const i = rest.indexOf(s.content);
        if (i >= 0 && (at < 0 || i < at)) {
          at = i;
          hit = s;
        }
      }
      if (!hit) {
        tokenizeSegment(rest, out);
        break;
      }
      tokenizeSegment(rest.slice(0, at), out);
      out.push(hit.id);
      rest = rest.slice(at + hit.content.length);
    }
    return out;
  }

  return {
    vocabSize: vocab.size,
    encode(text, maxLen) {
      const room = maxLen - before.length - after.length;
      if (room < 0)
        throw new Error(
          `maxLen must leave room for the special tokens (${[...template.before, ...template.after].join(' ')})`,
        );
      const body = tokenize(text);
      const ids = [...before, ...body.slice(0, room), ...after];
      return { ids, attentionMask: ids.map(() => 1), tokenTypeIds: ids.map(() => 0) };
    },
    count: (text) => tokenize(text).length,
  };
}
