import { multilingualOffer, type ModelLanguages } from '../models/language-offer.js';
import type { Connection } from './owner.js';
import { err } from './term.js';

/** A document add-doc added, as far as the hint reads it: how it ended and the language it was read in. */
export interface AddedDocument {
  outcome: string;
  language?: { code: string; confidence?: number } | null;
}

/**
 * The line add-doc prints when a document it added is in another language than English and the bot's
 * embedding model reads English only: which model reads that language, and the commands that put the
 * bot's collection on it (pull it if it is not installed, then reindex). Null when no such line is due.
 */
export async function multilingualHint(
  c: Connection,
  bot: { bot_id: string; embedding_model: string },
  docs: readonly AddedDocument[],
): Promise<string | null> {
  const added = docs.filter((d) => d.outcome === 'searchable' || d.outcome === 'ready_for_review');
  const language = added.find((d) => d.language && d.language.code !== 'eng')?.language;
  if (!language) return null;
  // A hint is never worth failing the command for: the documents are in.
  const models = await c.client
    .get<{ models: ModelLanguages[] }>('/models')
    .then((r) => r.models)
    .catch(() => []);
  const offer = multilingualOffer(language, bot.embedding_model, models);
  if (!offer) return null;
  const id = offer.model.id;
  const steps = [
    ...(offer.model.installed ? [] : [`lectern models pull ${id}`]),
    `lectern reindex bot-${bot.bot_id} --model ${id}`,
  ];
  return `${err.yellow('hint:')} ${offer.language.name} is read better by ${id} than by the bot's ${offer.current.id} (English only): ${err.bold(steps.join(' && '))}`;
}
