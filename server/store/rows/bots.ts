/**
 * Rows of the bots table <-> the store's records, for both backends: the SQLite and PostgreSQL tables have
 * the same columns under the same names (drizzle/schema.ts, drizzle/pg/schema.ts).
 */
import type { bots } from '../../../drizzle/schema.js';
import type { BotRecord } from '../repos/bots-repo.js';

export type BotRow = typeof bots.$inferSelect;

export const botOf = (b: BotRow): BotRecord => ({
  bot_id: b.botId,
  name: b.name,
  prompt_template: b.promptTemplate,
  llm: b.llm,
  embedding_model: b.embeddingModel,
  top_k: b.topK,
  min_similarity: b.minSimilarity,
  created_at: b.createdAt,
  updated_at: b.updatedAt,
});

export const botValues = (b: BotRecord): BotRow => ({
  botId: b.bot_id,
  name: b.name,
  promptTemplate: b.prompt_template,
  llm: b.llm,
  embeddingModel: b.embedding_model,
  topK: b.top_k,
  minSimilarity: b.min_similarity,
  createdAt: b.created_at,
  updatedAt: b.updated_at,
});
