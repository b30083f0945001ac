import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { json, type ServerClient, tempDir } from './app.js';
import { TOPICS_MD, waitForIngest } from './embed-flow.js';

/** A folder holding topics.md (TOPICS_MD), for a server to list in its document_roots so bots may read it by path. */
export function topicsRoot(prefix: string): string {
  const root = tempDir(prefix);
  writeFileSync(join(root, 'topics.md'), TOPICS_MD);
  return root;
}

/** Adds the file at `path` to a bot and waits until it is searchable; returns the job that read it. */
export async function addBotDocument(server: Pick<ServerClient, 'call'>, botId: string, path: string): Promise<string> {
  const added = await json(await server.call('POST', `/bots/${botId}/documents/path`, { json: { path } }));
  expect((await waitForIngest(server, added.job_id)).ingest_status).toBe('success');
  return added.job_id as string;
}

/**
 * An extractive bot (answers quoted from its documents: real code, no model) holding the file at `path`, with one
 * chat opened on it; `documentJobId` is the job that read the file.
 */
export async function extractiveBotChat(server: Pick<ServerClient, 'call'>, path: string) {
  const botId = (await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } })))
    .bot_id as string;
  const documentJobId = await addBotDocument(server, botId, path);
  const { chat_id } = await json(await server.call('POST', `/bots/${botId}/chats`));
  return { botId, chatId: chat_id as string, documentJobId };
}

/** Finalizes a bot document's job, everything approved, and waits until what it holds is searchable again. */
export async function finalizeBotDocument(server: Pick<ServerClient, 'call'>, jobId: string): Promise<void> {
  const res = await server.call('POST', `/jobs/${jobId}/finalize`, {
    json: { finalize_policy: 'auto_approve_pending' },
  });
  expect(res.status).toBe(200);
  expect((await waitForIngest(server, jobId)).ingest_status).toBe('success');
}
