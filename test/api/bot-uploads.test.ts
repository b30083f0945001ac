import { describe, expect, it } from 'vitest';
import { enc, json } from '../helpers/app.js';
import { TOPICS_MD, waitForIngest, startServerWithModel } from '../helpers/embed-flow.js';
import { useServer } from '../helpers/use-server.js';

// POST /bots/{id}/documents/upload over HTTP against the real server and real MiniLM embeddings: a file sent
// from a client becomes the bot's document, searchable on its own or held for review, checked as POST /jobs.

const MAX_BYTES = 64 * 1024;
const server = useServer(() => startServerWithModel({ max_upload_bytes: MAX_BYTES }));

const newBot = async () =>
  (await json(await server.call('POST', '/bots', { json: { llm: { provider: 'extractive' } } }))).bot_id as string;

function send(botId: string, name: string, data: Uint8Array | string, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([(typeof data === 'string' ? enc(data) : data) as Uint8Array<ArrayBuffer>]), name);
  return server.call('POST', `/bots/${botId}/documents/upload`, { body: form });
}

describe('uploading a document to a bot', () => {
  it("makes it the bot's document, searchable on its own; the same content again is a duplicate", async () => {
    const botId = await newBot();
    const res = await send(botId, 'topics.md', TOPICS_MD);
    expect(res.status).toBe(200);
    const added = await json(res);
    expect(added).toEqual({ job_id: expect.any(String), status: 'pending' });
    const job = await waitForIngest(server, added.job_id);
    expect(job).toMatchObject({
      status: 'indexed',
      ingest_status: 'success',
      bot_id: botId,
      source_file: 'topics.md',
      source: { kind: 'upload', review: false },
    });
    const bot = await json(await server.call('GET', `/bots/${botId}`));
    expect(bot.document_list).toEqual([
      expect.objectContaining({
        job_id: added.job_id,
        ingest_status: 'success',
        source: expect.objectContaining({ kind: 'upload' }),
      }),
    ]);
    const found = await json(
      await server.call('POST', `/bots/${botId}/vectorstore`, {
        json: { query: 'What does chlorophyll capture?', top_k: 1 },
      }),
    );
    expect(found.documents[0].content).toMatch(/Chlorophyll/);
    expect(found.documents[0].metadata).toMatchObject({ job_id: added.job_id, source: 'topics.md' });
    const again = await json(await send(botId, 'copy.md', TOPICS_MD));
    expect(again).toEqual({ job_id: added.job_id, status: 'duplicate' });
  });

  it('holds a document sent with review=true at ready_for_review', async () => {
    const botId = await newBot();
    const added = await json(
      await send(botId, 'rivers.md', '# Rivers\n\nRivers carry water to the sea.\n', { review: 'true' }),
    );
    // Held for a person: the job stops at ready_for_review.
    const job = await server.waitFor(added.job_id);
    expect(job).toMatchObject({
      status: 'ready_for_review',
      ingest_status: 'pending',
      source: { kind: 'upload', review: true },
    });
  });

  it('is in the OpenAPI as a multipart upload', async () => {
    const doc = await json(await fetch(`${server.url}/openapi.json`));
    const op = doc.paths['/bots/{bot_id}/documents/upload'].post;
    expect(Object.keys(op.requestBody.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '413', '415']));
  });

  it('answers 404 for an unknown bot, 401 without a key, 400 without a file or with a bad review field, 413 and 415 as POST /jobs does', async () => {
    const botId = await newBot();
    const unknown = await send('no-such-bot', 'a.md', '# A\n\nText.\n');
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe('BOT_NOT_FOUND');
    const noFile = await server.call('POST', `/bots/${botId}/documents/upload`, { json: {} });
    expect(noFile.status).toBe(400);
    expect((await json(noFile)).error.code).toBe('FILE_REQUIRED');
    const badReview = await send(botId, 'a.md', '# A\n\nText.\n', { review: 'perhaps' });
    expect(badReview.status).toBe(400);
    expect((await json(badReview)).error.code).toBe('VALIDATION_FAILED');
    const big = await send(botId, 'big.txt', 'x'.repeat(MAX_BYTES + 1));
    expect(big.status).toBe(413);
    expect((await json(big)).error.code).toBe('FILE_TOO_LARGE');
    const anonymous = await fetch(`${server.url}/bots/${botId}/documents/upload`, {
      method: 'POST',
      body: new FormData(),
    });
    expect(anonymous.status).toBe(401);
    const gif = await send(
      botId,
      'anim.gif',
      Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0, 0, 0x3b]),
    );
    expect(gif.status).toBe(415);
    // Nothing refused became a document.
    expect((await json(await server.call('GET', `/bots/${botId}`))).document_list).toEqual([]);
  });
});
