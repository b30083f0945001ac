import { precompiledNormalizer } from './precompiled-charsmap.js';
import { type NormalizerJson, type PatternJson, unsupported } from './tokenizer-json.js';
import { literalRegex, onigRegex } from './tokenizer-regex.js';

/** A normalizer of tokenizer.json as a function of the text: ids are all Lectern needs, so no offsets are kept. */
export type Normalize = (text: string) => string;

// The crate's is_other (of the unicode_categories crate): control, format, private use, surrogate; not
// unassigned code points, which reach the model (as [UNK]).
const CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u;
const WHITESPACE = /\p{White_Space}/u;
const MARK_NONSPACING = /\p{Mn}/u;
const MARK = /\p{M}/u;
const LEADING_SPACE = /^\p{White_Space}+/u;
const TRAILING_SPACE = /\p{White_Space}+$/u;

export function isChinese(cp: number): boolean {
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

export function isWhitespace(c: string): boolean {
  return c === '\t' || c === '\n' || c === '\r' || WHITESPACE.test(c);
}

/** Per character, like the crate: no context-dependent rules such as the Greek final sigma. */
function lowercase(text: string): string {
  let lower = '';
  for (const c of text) lower += c.toLowerCase();
  return lower;
}

function dropMarks(text: string, mark: RegExp): string {
  let out = '';
  for (const c of text) if (!mark.test(c)) out += c;
  return out;
}

/** BERT's: control characters dropped, whitespace made spaces, CJK ideographs spaced, accents, lowercase. */
function bertNormalizer(spec: NormalizerJson): Normalize {
  const clean = spec.clean_text ?? true;
  const chinese = spec.handle_chinese_chars ?? true;
  const lower = spec.lowercase ?? true;
  const strip = spec.strip_accents ?? lower; // the crate's default: strip when lowercasing
  return (text) => {
    let out = '';
    for (const c of text) {
      if (clean) {
        if (c === '\0' || c === '\ufffd' || (c !== '\t' && c !== '\n' && c !== '\r' && CONTROL.test(c))) continue;
        if (isWhitespace(c)) {
          out += ' ';
          continue;
        }
      }
      out += chinese && isChinese(c.codePointAt(0) ?? 0) ? ` ${c} ` : c;
    }
    if (strip) out = dropMarks(out.normalize('NFD'), MARK_NONSPACING);
    return lower ? lowercase(out) : out;
  };
}

export function patternRegex(pattern: PatternJson | undefined, what: string): RegExp {
  if (pattern && 'String' in pattern) return literalRegex(pattern.String);
  if (pattern && 'Regex' in pattern) return onigRegex(pattern.Regex, what);
  throw unsupported(`${what} without a pattern`);
}

export function normalizerOf(spec: NormalizerJson): Normalize {
  switch (spec.type) {
    case 'Sequence': {
      const steps = (spec.normalizers ?? []).map(normalizerOf);
      return (text) => steps.reduce((t, step) => step(t), text);
    }
    case 'BertNormalizer':
      return bertNormalizer(spec);
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD': {
      const form = spec.type;
      return (text) => text.normalize(form);
    }
    case 'Lowercase':
      return lowercase;
    case 'StripAccents':
      return (text) => dropMarks(text, MARK);
    case 'Strip': {
      const left = spec.strip_left ?? false;
      const right = spec.strip_right ?? false;
      return (text) => {
        const t = left ? text.replace(LEADING_SPACE, '') : text;
        return right ? t.replace(TRAILING_SPACE, '') : t;
      };
    }
    case 'Replace': {
      const regex = patternRegex(spec.pattern, 'normalizer Replace');
      const content = spec.content ?? '';
      return (text) => text.replace(regex, () => content);
    }
    case 'Prepend': {
      const prefix = spec.prepend ?? '';
      return (text) => (text ? prefix + text : text);
    }
    case 'Append': {
      const suffix = spec.append ?? '';
      return (text) => (text ? text + suffix : text);
    }
    case 'Precompiled':
      return spec.precompiled_charsmap ? precompiledNormalizer(spec.precompiled_charsmap) : (text) => text;
    default:
      throw unsupported(`normalizer ${spec.type}`);
  }
}
