/**
 * A bot's collection reindexed to another model stays the bot's: the bot then shows that model, documents
 * added afterwards are embedded with it into the same collection, and its search finds them. The second model
 * is the test MiniLM imported with CLS pooling (the same weights, other vectors).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, tempDir, type TestServer } from '../helpers/app.js';
import { startServerWithModel, TEST_MODEL, TOPICS_MD, waitForIngest } from '../helpers/embed-flow.js';
import { writeMiniLmFolder } from '../helpers/st-folder.js';

const OTHER = 'minilm-cls';
const RIVERS_MD =
  '# Rivers\n\nThe Danube flows east through ten countries into the Black Sea, where it spreads into a wide delta of reeds and channels.\n';
let server: TestServer;
let root = '';

async function addDocument(botId: string, name: string): Promise<Record<string, any>> {
  const added = await json(
    await server.call('POST', `/bots/${botId}/documents/path`, { json: { path: join(root, name) } }),
  );
  return waitForIngest(server, added.job_id);
}

beforeAll(async () => {
  root = tempDir('lectern-bot-reindex-');
  writeFileSync(join(root, 'topics.md'), TOPICS_MD);
  writeFileSync(join(root, 'rivers.md'), RIVERS_MD);
  await writeMiniLmFolder(join(root, 'cls'), { pooling: 'cls' });
  server = await startServerWithModel({ document_roots: [root] });
  const imported = await server.call('POST', `/models/${OTHER}/import`, { json: { path: join(root, 'cls') } });
  expect(imported.status, await imported.clone().text()).toBe(200);
}, 300_000);
afterAll(async () => server?.close());

describe("a bot's collection reindexed to another model", () => {
  it('is the model the bot shows and embeds its next documents with; its search finds them', async () => {
    const created = await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } }));
    const bot = await json(await server.call('GET', `/bots/${created.bot_id}`));
    expect(bot.embedding_model).toBe(TEST_MODEL);
    expect((await addDocument(bot.bot_id, 'topics.md')).ingest_status).toBe('success');

    const started = await server.call('POST', `/collections/${bot.collection_name}/reindex`, {
      json: { embedding_model: OTHER },
    });
    expect(started.status, await started.clone().text()).toBe(202);
    for (const end = Date.now() + 120_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const r = await json(await server.call('GET', `/collections/${bot.collection_name}/reindex`));
      if (r.state === 'done') break;
      expect(['queued', 'running'], JSON.stringify(r)).toContain(r.state);
      expect(Date.now()).toBeLessThan(end);
    }
    expect((await json(await server.call('GET', `/bots/${bot.bot_id}`))).embedding_model).toBe(OTHER);
    const listed = (await json(await server.call('GET', '/bots'))).items as {
      bot_id: string;
      embedding_model: string;
    }[];
    expect(listed.find((b) => b.bot_id === bot.bot_id)?.embedding_model).toBe(OTHER);

    const rivers = await addDocument(bot.bot_id, 'rivers.md');
    expect(rivers.ingest_status, JSON.stringify(rivers.error)).toBe('success');
    const found = await server.call('POST', `/bots/${bot.bot_id}/vectorstore`, {
      json: { query: 'Which river flows into the Black Sea?', top_k: 3, mode: 'vector' },
    });
    const body = await json(found);
    expect(found.status, JSON.stringify(body)).toBe(200);
    expect(body.documents[0].metadata.job_id).toBe(rivers.job_id);
  });
});
