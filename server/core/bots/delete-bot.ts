import type { JobsService } from '../jobs/jobs-service.js';
import type { Indexer } from '../indexing/indexer.js';
import { botCollection, type BotsService } from './bots-service.js';

/**
 * Deletes a bot and everything it holds: each document's job (rows, files, vectors, stopped if still
 * running), the bot's collection and index files, then the bot with its chats and messages.
 */
export async function deleteBot(
  d: { bots: BotsService; jobs: Pick<JobsService, 'delete'>; indexer: Pick<Indexer, 'dropCollection'> },
  botId: string,
) {
  await d.bots.get(botId);
  for (const job of await d.bots.documents(botId)) await d.jobs.delete(job.job_id);
  await d.indexer.dropCollection(botCollection(botId));
  await d.bots.delete(botId);
  return { status: 'deleted' as const, bot_id: botId };
}
