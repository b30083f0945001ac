import { unsupported } from './tokenizer-json.js';

/**
 * The `tokenizers` crate runs the regular expressions of tokenizer.json (Split, Replace) with Oniguruma, whose
 * classes are Unicode-wide where JavaScript's are ASCII (`\s`, `\w`, `\d`) and which knows groups JavaScript
 * (V8 before 12.5) does not (`(?i:…)`, as in Llama 3's split pattern). This rewrites what differs; a pattern
 * that still does not compile, or has possessive quantifiers, is refused rather than run otherwise.
 */
const WORD = '\\p{L}\\p{M}\\p{Nd}\\p{Pc}';
const IN_CLASS: Record<string, string | undefined> = {
  s: '\\p{White_Space}',
  S: '\\P{White_Space}',
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  w: WORD,
};
const OUTSIDE: Record<string, string | undefined> = { ...IN_CLASS, w: `[${WORD}]`, W: `[^${WORD}]` };

export function onigRegex(source: string, what: string): RegExp {
  let out = '';
  let inClass = false;
  // Depth of each open group, and whether it is case-insensitive.
  const groups: boolean[] = [];
  const caseless = () => groups.includes(true);
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      const mapped = (inClass ? IN_CLASS : OUTSIDE)[next];
      if (mapped) out += mapped;
      else if (next === 'W' || next === 'A' || next === 'z' || next === 'Z' || next === 'h' || next === 'G')
        throw unsupported(`${what}: the regular expression's \\${next}`);
      else if ((next === 'p' || next === 'P') && source[i + 2] === '{') {
        const end = source.indexOf('}', i);
        out += source.slice(i, end + 1);
        i = end;
        continue;
      } else out += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      else if (caseless() && /\p{L}/u.test(c))
        throw unsupported(`${what}: a character class inside a case-insensitive group`);
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (source[i + 1] === '^') out += source[++i];
      if (source[i + 1] === ']') out += source[++i];
      continue;
    }
    if (c === '(') {
      if (source.startsWith('(?i:', i)) {
        groups.push(true);
        out += '(?:';
        i += 3;
      } else {
        groups.push(false);
        out += c;
      }
      continue;
    }
    if (c === ')') {
      groups.pop();
      out += c;
      continue;
    }
    if ((c === '+' || c === '*' || c === '?' || c === '}') && source[i + 1] === '+')
      throw unsupported(`${what}: the regular expression's possessive quantifier ${c}+`);
    if (caseless() && /\p{L}/u.test(c)) {
      const lower = c.toLowerCase();
      const upper = c.toUpperCase();
      out += lower === upper ? c : `[${lower}${upper}]`;
      continue;
    }
    out += c;
  }
  try {
    return new RegExp(out, 'gu');
  } catch (err) {
    throw unsupported(`${what}: the regular expression /${source}/ (${(err as Error).message})`);
  }
}

/** A literal pattern as a RegExp that finds it anywhere. */
export function literalRegex(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'gu');
}
