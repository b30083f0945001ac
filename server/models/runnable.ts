import type { TokenizerModel } from './catalog.js';
import type { KnownModel } from './manager.js';

/** The tokenizers Lectern's embedder runs (server/core/embedding/); a model needing another is listed, not pulled. */
export const RUNNABLE_TOKENIZERS: readonly TokenizerModel[] = ['WordPiece', 'Unigram', 'BPE'];

/** Why this machine cannot run the model yet, or undefined when it can. */
export function notRunnableReason(m: KnownModel): string | undefined {
  if (m.task !== 'embedding' || 'custom' in m) return undefined;
  const tokenizer = m.tokenizerModel ?? 'WordPiece';
  if (RUNNABLE_TOKENIZERS.includes(tokenizer)) return undefined;
  return `${m.id} needs a ${tokenizer} tokenizer, and Lectern runs ${RUNNABLE_TOKENIZERS.join(', ')} tokenizers: it is not yet runnable here, so it is not downloaded`;
}
