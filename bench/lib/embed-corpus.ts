import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Tokenizer } from '../../server/core/embedding/tokenizer.js';

/**
 * Real English prose cut into chunks of `tokens` WordPiece tokens ([CLS]/[SEP] included): the licence
 * texts every Debian machine has. Whitespace-split words tokenize independently, so counts add up.
 */
export function proseChunks(
  tokenizer: Tokenizer,
  count: number,
  tokens: number,
  dir = '/usr/share/common-licenses',
): string[] {
  const words = readdirSync(dir)
    .sort()
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .flatMap((p) => readFileSync(p, 'utf8').split(/\s+/).filter(Boolean));
  if (words.length === 0) throw new Error(`no text in ${dir}`);
  const chunks: string[] = [];
  let w = 0;
  while (chunks.length < count) {
    const parts: string[] = [];
    let used = 2;
    for (;;) {
      const word = words[w % words.length]!;
      const n = tokenizer.count(word);
      if (used + n > tokens) break;
      parts.push(word);
      used += n;
      w++;
    }
    // Offset the next chunk by a few words so repeats of a short corpus are not identical chunks.
    w += chunks.length % 7;
    chunks.push(parts.join(' '));
  }
  return chunks;
}
