import type { JobsService } from '../jobs/jobs-service.js';
import type { Indexer } from '../indexing/indexer.js';
import { botCollection, type BotsStore } from './bots-store.js';

/**
 * Deletes a bot and everything it holds: each document's job (rows, files, vectors, stopped if still
 * running), the bot's collection and index files, then the bot with its chats and messages.
 */
export function deleteBot(d: { bots: BotsStore; jobs: Pick<JobsService, 'delete'>; indexer: Pick<Indexer, 'dropCollection'> }, botId: string) {
  d.bots.get(botId);
  for (const job of d.bots.documents(botId)) d.jobs.delete(job.jobId);
  d.indexer.dropCollection(botCollection(botId));
  d.bots.delete(botId);
  return { status: 'deleted' as const, bot_id: botId };
}
