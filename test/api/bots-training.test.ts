import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, listPage, startServer, tempDir, waitForProgress, type TestServer } from '../helpers/app.js';
import { extractiveBotChat, finalizeBotDocument, topicsRoot } from '../helpers/bot-flow.js';
import { installTestModel, TEST_MODEL, waitForIngest } from '../helpers/embed-flow.js';
import { makeLongPdf } from '../helpers/make-pdf.js';

// Learning from chats with a person in between, through HTTP against the real server and real MiniLM: the
// pairs put up for training are reviewed like any document (edited, rejected, undone), and only what the
// person kept is learnt and marked trained; a training job that is cancelled or thrown away gives its
// pairs back. One worker thread, so a long PDF can hold a training job in the queue.

let server: TestServer;
let root = '';
let dataDir = '';
let longPdf: Buffer;

beforeAll(async () => {
  root = topicsRoot('lectern-training-');
  dataDir = tempDir();
  [longPdf] = await Promise.all([makeLongPdf(400), installTestModel(dataDir)]);
  server = await startServer({
    dataDir,
    settings: { workers: 1, embedding_model: TEST_MODEL, document_roots: [root] },
  });
});
afterAll(async () => server?.close());

interface Block {
  block_id: string;
  type: string;
  text: string;
  status: string;
  version: number;
  current_revision_id: string | null;
}

/** An extractive bot holding topics.md, and one chat in which it answered each question. */
async function botWithAnswers(questions: string[]) {
  const { botId, chatId } = await extractiveBotChat(server, join(root, 'topics.md'));
  const answers = [];
  for (const query of questions) {
    const m = await json(await server.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query } }));
    expect(m.not_found, query).toBe(false);
    answers.push(m as { message_id: string; answer: string; citations: unknown[] });
  }
  return { botId, chatId, answers };
}

const train = async (botId: string) => {
  const res = await server.call('POST', `/bots/${botId}/train-chats`);
  expect(res.status).toBe(200);
  return json(res);
};
const blocksOf = async (jobId: string): Promise<Block[]> => (await listPage(server, `/jobs/${jobId}/blocks`)).items;
const patch = async (jobId: string, b: Block, body: Record<string, unknown>): Promise<Block> => {
  const res = await server.call('PATCH', `/jobs/${jobId}/blocks/${b.block_id}`, {
    json: { version: b.version, ...body },
  });
  expect(res.status).toBe(200);
  return json(res);
};
const pairIds = (job: Record<string, any>): string[] =>
  job.source.pairs.map((p: { message_id: string }) => p.message_id);
/** What the bot's index finds for a query among the chats it learned from. */
const learned = async (botId: string, query: string): Promise<string[]> => {
  const hits = await json(await server.call('POST', `/bots/${botId}/vectorstore`, { json: { query, top_k: 10 } }));
  return hits.documents
    .filter((h: { metadata: { source: string } }) => h.metadata.source === 'Learned from chats')
    .map((h: { content: string }) => h.content);
};

describe('learning from chats', () => {
  it('learns only the pairs a person kept: one edited, one rejected, one whose rejection was undone, one kept without its question', async () => {
    const questions = [
      'What does chlorophyll capture?',
      'How is bread dough prepared?',
      'How do volcanoes erupt?',
      'Which chess opening offers a pawn?',
    ];
    const { botId, chatId, answers } = await botWithAnswers(questions);
    const put = await train(botId);
    expect(put).toEqual({
      message: `4 question-answer pair(s) are waiting for review in job ${put.job_id}.`,
      csv_path: expect.stringMatching(/\.csv$/),
      job_id: expect.any(String),
      pairs: 4,
    });
    const job = await server.waitFor(put.job_id);
    expect(job).toMatchObject({ status: 'ready_for_review', source: { kind: 'chat_training' } });
    expect(job.source.pairs).toEqual(
      answers.map((a) => ({ chat_id: chatId, message_id: a.message_id, citations: a.citations })),
    );

    // One heading per question, each followed by its answer as a paragraph, under the document's title.
    const blocks = await blocksOf(put.job_id);
    expect(blocks.map((b) => [b.type, b.text])).toEqual([
      ['heading', 'Learned from chats'],
      ...questions.flatMap((q, i) => [
        ['heading', `Q${i + 1}. ${q}`],
        ['paragraph', answers[i]!.answer],
      ]),
    ]);
    const [, , a1, q2, a2, , a3, q4] = blocks as [Block, Block, Block, Block, Block, Block, Block, Block, Block];

    const edited = await patch(put.job_id, a1, {
      edited_text: 'Chlorophyll captures sunlight, as the teacher checked.',
    });
    expect(edited).toMatchObject({ status: 'edited', text: 'Chlorophyll captures sunlight, as the teacher checked.' });
    for (const b of [q2, a2]) expect((await patch(put.job_id, b, { status: 'rejected' })).status).toBe('rejected');
    // The third answer rejected, then the rejection undone: it is kept after all.
    const rejected = await patch(put.job_id, a3, { status: 'rejected' });
    const undo = await server.call('POST', `/jobs/${put.job_id}/blocks/undo`, {
      json: {
        items: [{ block_id: a3.block_id, version: rejected.version, revision_id: rejected.current_revision_id }],
      },
    });
    expect(undo.status).toBe(200);
    // The fourth question's heading rejected, its answer left: the answer is learnt without it.
    expect((await patch(put.job_id, q4, { status: 'rejected' })).status).toBe('rejected');
    // Read again: the review stands as left.
    expect((await blocksOf(put.job_id)).map((b) => b.status)).toEqual([
      'pending',
      'pending',
      'edited',
      'rejected',
      'rejected',
      'pending',
      'pending',
      'rejected',
      'pending',
    ]);
    // Nothing is learnt or marked before the person finalizes.
    expect(await learned(botId, questions[0]!)).toEqual([]);
    expect(await train(botId)).toMatchObject({
      pairs: 0,
      message: 'No new chats found for training.',
      csv_path: null,
      job_id: null,
    });

    expect(
      (await server.call('POST', `/jobs/${put.job_id}/finalize`, { json: { finalize_policy: 'auto_approve_pending' } }))
        .status,
    ).toBe(200);
    expect((await waitForIngest(server, put.job_id)).ingest_status).toBe('success');
    const chunks = (await listPage(server, `/jobs/${put.job_id}/chunks`)).items
      .map((c: { text: string }) => c.text)
      .join('\n');
    expect(chunks).toContain('as the teacher checked');
    expect(chunks).toContain(questions[2]);
    expect(chunks).not.toContain(answers[0]!.answer);
    expect(chunks).not.toMatch(/bread|dough/i);
    expect(chunks).toContain(answers[3]!.answer);
    expect(chunks).not.toContain(questions[3]);
    expect((await learned(botId, questions[0]!)).join('\n')).toContain('as the teacher checked');
    expect((await learned(botId, questions[1]!)).join('\n')).not.toMatch(/bread|dough/i);
    // The export carries the reviewed document: the edit and the kept pairs, not the rejected one.
    const zip = await server.call('GET', `/jobs/${put.job_id}/export`);
    expect(zip.status).toBe(200);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const md = strFromU8(Object.entries(files).find(([name]) => name.endsWith('document.md'))![1]);
    expect(md).toContain('as the teacher checked');
    expect(md).toContain(`Q3. ${questions[2]}`);
    expect(md).not.toContain(questions[1]);

    // Nothing is offered twice: the kept pairs are trained (the fourth too, as its answer is learnt), the
    // rejected one stays with the job that holds it.
    expect(await train(botId)).toMatchObject({ pairs: 0, csv_path: null });
    // Throwing that job away shows which were marked: only the rejected pair, never trained, comes back.
    expect((await server.call('DELETE', `/jobs/${put.job_id}`)).status).toBe(204);
    const again = await train(botId);
    expect(again).toMatchObject({
      pairs: 1,
      message: `1 question-answer pair(s) are waiting for review in job ${again.job_id}.`,
    });
    expect(pairIds(await server.waitFor(again.job_id))).toEqual([answers[1]!.message_id]);
  });

  it('gives the pairs back when a training job is cancelled or thrown away, so a failure loses nothing', async () => {
    const { botId, answers } = await botWithAnswers(['What does chlorophyll capture?', 'How is bread dough prepared?']);
    const ids = answers.map((a) => a.message_id);
    // The only worker thread busy with a long PDF: the training job waits in the queue.
    const blocker = await json(await server.upload('long.pdf', longPdf));
    await waitForProgress(server, blocker.job_id, 1);
    const first = await train(botId);
    expect(first.pairs).toBe(2);
    expect((await json(await server.call('GET', `/jobs/${first.job_id}`))).status).toBe('queued');
    const cancelled = await server.call('POST', `/jobs/${first.job_id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(await json(cancelled)).toMatchObject({ status: 'cancelled', ingest_status: 'failed' });

    // Put up again: the same pairs, in a new job (the cancelled one's content does not make it a duplicate).
    const second = await train(botId);
    expect(second).toMatchObject({ pairs: 2, job_id: expect.any(String) });
    expect(second.job_id).not.toBe(first.job_id);
    // Held by the live job, they are not offered a third time.
    expect(await train(botId)).toMatchObject({ pairs: 0 });
    expect((await server.call('POST', `/jobs/${blocker.job_id}/cancel`)).status).toBe(200);
    const waiting = await server.waitFor(second.job_id);
    expect(waiting.status).toBe('ready_for_review');
    expect(pairIds(waiting)).toEqual(ids);

    // The reviewer throws the whole job away instead of finalizing it: the pairs come back once more.
    expect((await server.call('DELETE', `/jobs/${second.job_id}`)).status).toBe(204);
    const third = await train(botId);
    expect(third.pairs).toBe(2);
    expect(pairIds(await server.waitFor(third.job_id))).toEqual(ids);
    await finalizeBotDocument(server, third.job_id);
    expect((await learned(botId, 'What does chlorophyll capture?')).join('\n')).toContain(
      'Q1. What does chlorophyll capture?',
    );
    expect(await train(botId)).toMatchObject({ pairs: 0, message: 'No new chats found for training.' });
  });

  it('marks pairs trained only once they are in the index: a job whose embedding failed, then deleted, gives them back', async () => {
    const { botId, answers } = await botWithAnswers(['How do volcanoes erupt?']);
    const put = await train(botId);
    expect(put.pairs).toBe(1);
    expect((await server.waitFor(put.job_id)).status).toBe('ready_for_review');
    // The bot's embedding model goes missing (its folder moved away) before the person finalizes.
    const modelDir = join(dataDir, 'models', TEST_MODEL);
    renameSync(modelDir, `${modelDir}.away`);
    try {
      expect(
        (
          await server.call('POST', `/jobs/${put.job_id}/finalize`, {
            json: { finalize_policy: 'auto_approve_pending' },
          })
        ).status,
      ).toBe(200);
      expect(await waitForIngest(server, put.job_id)).toMatchObject({
        status: 'finalized',
        ingest_status: 'failed',
        error: { code: 'MODEL_NOT_INSTALLED' },
      });
    } finally {
      renameSync(`${modelDir}.away`, modelDir);
    }
    // Not learnt, so not trained: still held by the job while it lives, given back when it is thrown away.
    expect(await learned(botId, 'How do volcanoes erupt?')).toEqual([]);
    expect(await train(botId)).toMatchObject({ pairs: 0 });
    expect((await server.call('DELETE', `/jobs/${put.job_id}`)).status).toBe(204);
    const again = await train(botId);
    expect(again.pairs).toBe(1);
    expect(pairIds(await server.waitFor(again.job_id))).toEqual([answers[0]!.message_id]);
    // Learnt this time: trained, and not offered again.
    await finalizeBotDocument(server, again.job_id);
    expect((await learned(botId, 'How do volcanoes erupt?')).join('\n')).toContain('Q1. How do volcanoes erupt?');
    expect(await train(botId)).toMatchObject({ pairs: 0, message: 'No new chats found for training.' });
  });
});
