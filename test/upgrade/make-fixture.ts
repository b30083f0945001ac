/**
 * Writes test/fixtures/upgrade/: a data folder made by an earlier build of Lectern, and what that build
 * answered when everything in it was read back through the API (expected.json). upgrade.test.ts opens a
 * copy of the folder with the current server and compares.
 *
 *   npx tsx test/upgrade/make-fixture.ts PREVIOUS_CHECKOUT
 *
 * PREVIOUS_CHECKOUT is a checkout of the earlier version with its node_modules and a built dist/
 * (`node scripts/build-node.mjs` there): its `lectern serve` runs as a child process. The folder is filled
 * over HTTP only: jobs reviewed, finalized and embedded, job chat sessions, a bot with a document, rated
 * chats, a chat put up for training and learned, a vision chat, named keys; chats first stored plain, then
 * sealed (encrypt_chats) after a restart. The models folder (weights are never committed), the lock file
 * and scratch folders are left out of the copy.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { enc, listPage, repoRoot, serverClient, tempDir, type ServerClient } from '../helpers/app.js';
import { listeningAddress } from '../helpers/child-server.js';
import { installTestModel, TEST_MODEL, waitForIngest } from '../helpers/embed-flow.js';
import { makeStructuredPdf } from '../helpers/make-pdf.js';
import { DRAFT_NOTES_MD, FIELD_GUIDE_MD, PUMP_MANUAL_MD, ratingPlatePng } from './fixture-documents.js';
import { readEverything, type FixtureQueries } from './read-back.js';

const prevDir = resolve(process.argv[2] ?? '');
if (!process.argv[2] || !existsSync(join(prevDir, 'dist', 'cli.js'))) {
  process.stderr.write('usage: npx tsx test/upgrade/make-fixture.ts PREVIOUS_CHECKOUT (with dist/ built)\n');
  process.exit(2);
}
const fixtureDir = join(repoRoot, 'test', 'fixtures', 'upgrade');
const dataDir = tempDir('lectern-upgrade-data-');
const rootDir = tempDir('lectern-upgrade-roots-');
const serviceKey = randomBytes(16).toString('hex');

type Json = any;
type Client = ServerClient & { url: string; stop(): Promise<void> };

/** `lectern serve` of the earlier version on a free port; resolves once it listens. */
async function startPrevious(encryptChats: boolean): Promise<Client> {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(prevDir, 'bin', 'lectern.js'), 'serve', '--data-dir', dataDir, '-p', '0', '--workers', '2'],
    {
      cwd: dataDir,
      env: {
        ...process.env,
        SERVICE_API_KEY: serviceKey,
        LECTERN_WARM_UP_ROUNDS: '0',
        LECTERN_LOG_LEVEL: 'info',
        LECTERN_EMBEDDING_MODEL: TEST_MODEL,
        LECTERN_LLM_PROVIDER: 'extractive',
        LECTERN_DOCUMENT_ROOTS: rootDir,
        LECTERN_ENCRYPT_CHATS: String(encryptChats),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await listeningAddress(child);
  running = {
    url,
    ...serverClient(url, serviceKey),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  return running;
}
/** The server started last: stopped whatever happens, so a failed run leaves no process behind. */
let running: Client | undefined;

/** The answer's JSON; anything but a 2xx stops the script with the request and the answer. */
async function ok(res: Response, what: string): Promise<Json> {
  const body = await res.text();
  if (res.status < 200 || res.status >= 300) throw new Error(`${what} answered ${res.status}: ${body}`);
  return body ? JSON.parse(body) : null;
}

const as = (name: string) => ({ 'x-reviewer': name });
/** A request made as `who` (the X-Reviewer the audit trail names); its JSON answer, as `ok` gives it. */
const sendAs = async (s: ServerClient, who: string, method: string, path: string, json: unknown, what: string) =>
  ok(await s.call(method, path, { json, headers: as(who) }), what);
/** Approves every block `filter` selects, in one bulk review. */
const approveAll = (s: ServerClient, who: string, jobId: string, filter: Record<string, unknown>, what: string) =>
  sendAs(s, who, 'POST', `/jobs/${jobId}/blocks/review`, { status: 'approved', filter }, what);
const finalize = (s: ServerClient, who: string, jobId: string, finalize_policy: string, what: string) =>
  sendAs(s, who, 'POST', `/jobs/${jobId}/finalize`, { finalize_policy }, what);

async function blocksOf(s: ServerClient, jobId: string): Promise<Json[]> {
  return (await listPage(s, `/jobs/${jobId}/blocks?limit=500`)).items;
}

function find(blocks: Json[], text: string): Json {
  const b = blocks.find((x) => String(x.text).includes(text));
  if (!b) throw new Error(`no block holds "${text}"`);
  return b;
}

async function upload(
  s: ServerClient,
  name: string,
  data: Uint8Array,
  fields: Record<string, string> = {},
): Promise<string> {
  const { job_id } = await ok(await s.upload(name, data, fields), `upload ${name}`);
  return job_id as string;
}

async function ready(s: ServerClient, jobId: string): Promise<void> {
  const job = await s.waitFor(jobId);
  if (job.status !== 'ready_for_review')
    throw new Error(`job ${jobId} ended ${job.status}: ${JSON.stringify(job.error)}`);
}

async function embed(s: ServerClient, jobId: string): Promise<void> {
  await ok(await s.call('POST', `/jobs/${jobId}/embed`, { json: { collection_name: 'library' } }), `embed ${jobId}`);
  const job = await s.waitFor(jobId, ['indexed', 'finalized', 'failed'], 120_000);
  if (job.status !== 'indexed') throw new Error(`embedding ${jobId} ended ${job.status}: ${JSON.stringify(job.index)}`);
}

/** The field guide: an edit with a note, a rejection, an edit taken back, headings approved in bulk, a type
 * changed, rechunked, a chunk edited, then finalized (pending approved) and embedded. */
async function fieldGuide(s: ServerClient): Promise<string> {
  const id = await upload(s, 'field-guide.md', enc(FIELD_GUIDE_MD), { chunk_size: '64', chunk_overlap: '8' });
  await ready(s, id);
  const patch = async (b: Json, body: Record<string, unknown>, who: string) =>
    sendAs(s, who, 'PATCH', `/jobs/${id}/blocks/${b.block_id}`, { version: b.version, ...body }, `PATCH ${b.block_id}`);
  let blocks = await blocksOf(s, id);
  await patch(
    find(blocks, 'Magma rises'),
    { edited_text: 'Magma rises through the crust and erupts as lava and ash.', reviewer_note: 'shortened' },
    'ada',
  );
  await patch(find(blocks, 'File the annual'), { status: 'rejected', reviewer_note: 'off topic' }, 'ada');
  const edited = await patch(find(blocks, 'Sicilian'), { edited_text: 'A wrong reading of the chess section.' }, 'bob');
  const undone = { block_id: edited.block_id, version: edited.version, revision_id: edited.current_revision_id };
  await sendAs(s, 'ada', 'POST', `/jobs/${id}/blocks/undo`, { items: [undone] }, 'undo');
  await approveAll(s, 'ada', id, { type: 'heading' }, 'bulk approve');
  blocks = await blocksOf(s, id);
  await patch(find(blocks, 'This guide collects'), { edited_type: 'caption', status: 'approved' }, 'bob');
  await ok(await s.call('POST', `/jobs/${id}/rechunk`, { headers: as('ada') }), 'rechunk');
  const chunk = (await listPage(s, `/jobs/${id}/chunks?limit=500`)).items.find((c: Json) =>
    String(c.text).includes('Chlorophyll'),
  );
  if (!chunk) throw new Error('no chunk holds Chlorophyll');
  const stomata = {
    version: chunk.version,
    edited_text: `${chunk.text}\n\nPlants release the oxygen through their stomata.`,
    status: 'approved',
    reviewer_note: 'added the stomata',
  };
  await sendAs(s, 'bob', 'PATCH', `/jobs/${id}/chunks/${chunk.chunk_id}`, stomata, 'PATCH chunk');
  await finalize(s, 'ada', id, 'auto_approve_pending', 'finalize field guide');
  await embed(s, id);
  return id;
}

/** The structured report (PDF): a split, a merge, pages approved in bulk, a type changed, a rejection, then
 * finalized rejecting what was left pending, and embedded. */
async function report(s: ServerClient): Promise<string> {
  const id = await upload(s, 'report.pdf', await makeStructuredPdf(), { chunk_size: '128', chunk_overlap: '16' });
  await ready(s, id);
  let blocks = await blocksOf(s, id);
  const method = find(blocks, 'The method is simple.');
  const split = { version: method.version, at: String(method.text).indexOf('Each page') };
  await sendAs(s, 'ada', 'POST', `/jobs/${id}/blocks/${method.block_id}/split`, split, 'split');
  const items = [find(blocks, 'item one'), find(blocks, 'item two')].map((b) => ({
    block_id: b.block_id,
    version: b.version,
  }));
  await sendAs(s, 'ada', 'POST', `/jobs/${id}/blocks/merge`, { items, separator: '; ' }, 'merge');
  await approveAll(s, 'bob', id, { page: 1 }, 'approve page 1');
  blocks = await blocksOf(s, id);
  const caption = find(blocks, 'Table 1: Quarterly figures');
  const paragraph = { version: caption.version, edited_type: 'paragraph' };
  await sendAs(s, 'bob', 'PATCH', `/jobs/${id}/blocks/${caption.block_id}`, paragraph, 'caption type');
  await approveAll(s, 'bob', id, { page: 2 }, 'approve page 2');
  const right = find(blocks, 'RIGHT-COLUMN-START');
  const rejected = { version: right.version, status: 'rejected' };
  await sendAs(s, 'ada', 'PATCH', `/jobs/${id}/blocks/${right.block_id}`, rejected, 'reject');
  await finalize(s, 'ada', id, 'auto_reject_pending', 'finalize report');
  await embed(s, id);
  return id;
}

const chat = async (s: ServerClient, body: Record<string, unknown>, who = 'ada') =>
  sendAs(s, who, 'POST', '/chat', { llm_provider: 'extractive', ...body }, `chat "${String(body.question)}"`);
const resume = async (s: ServerClient, session_id: string, thread_id: string, body: Record<string, unknown>) =>
  sendAs(s, 'carol', 'POST', '/chat/resume', { session_id, thread_id, ...body }, 'resume');

async function idempotent(s: ServerClient, body: Record<string, unknown>): Promise<void> {
  const first = await chat(s, body);
  const again = await chat(s, body);
  if (again.turn_id !== first.turn_id)
    throw new Error(`idempotency_key ${String(body.idempotency_key)} made a second turn`);
}

const botMessage = async (s: ServerClient, botId: string, chatId: string, query: string) =>
  ok(await s.call('POST', `/bots/${botId}/chats/${chatId}`, { json: { query } }), `bot chat "${query}"`);
const rate = async (s: ServerClient, chatId: string, messageId: string, body: Record<string, unknown>) =>
  ok(await s.call('POST', `/chats/${chatId}/messages/${messageId}/feedback`, { json: body }), 'feedback');

async function main(): Promise<void> {
  await installTestModel(dataDir);
  writeFileSync(join(rootDir, 'pump-manual.md'), PUMP_MANUAL_MD);

  // Chats stored plain.
  let s = await startPrevious(false);
  const fieldGuideId = await fieldGuide(s);
  const reportId = await report(s);
  const draftId = await upload(s, 'draft-notes.md', enc(DRAFT_NOTES_MD));
  await ready(s, draftId);
  const lighthouse = find(await blocksOf(s, draftId), 'Lighthouses');
  const approved = { version: lighthouse.version, status: 'approved' };
  await sendAs(s, 'bob', 'PATCH', `/jobs/${draftId}/blocks/${lighthouse.block_id}`, approved, 'approve draft');
  const brokenId = await upload(
    s,
    'broken.pdf',
    enc('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'),
  );
  const broken = await s.waitFor(brokenId);
  if (broken.status !== 'failed') throw new Error(`the broken PDF ended ${broken.status}`);

  const session = { job_id: fieldGuideId, title: 'Field guide questions' };
  const { session_id: session1 } = await sendAs(s, 'ada', 'POST', '/chat/sessions', session, 'session');
  await chat(s, { session_id: session1, question: 'What does chlorophyll capture?' });
  const held = await chat(s, {
    session_id: session1,
    question: 'How does magma reach the surface?',
    require_approval: true,
  });
  await resume(s, session1, held.thread_id, {
    action: 'edit',
    edited_answer: 'Magma rises through the crust and erupts as lava and ash [S1].',
  });
  await idempotent(s, {
    session_id: session1,
    question: "What does the Queen's Gambit offer?",
    idempotency_key: 'field-guide-gambit',
  });
  const refused = await chat(s, { session_id: session1, question: 'How is bread baked?', require_approval: true });
  await resume(s, session1, refused.thread_id, { action: 'reject' });

  const { bot_id: botId } = await ok(
    await s.call('POST', '/bots', {
      json: {
        name: 'Pump helper',
        prompt_template: 'You answer from the pump manual.',
        llm: { provider: 'extractive' },
        top_k: 4,
      },
    }),
    'create bot',
  );
  const added = await ok(
    await s.call('POST', `/bots/${botId}/documents/path`, { json: { path: join(rootDir, 'pump-manual.md') } }),
    'add document',
  );
  if ((await waitForIngest(s, added.job_id)).ingest_status !== 'success')
    throw new Error('the pump manual was not ingested');
  const { chat_id: chatA } = await ok(await s.call('POST', `/bots/${botId}/chats`), 'bot chat');
  const liked = await botMessage(s, botId, chatA, 'How do I prime the pump?');
  const disliked = await botMessage(s, botId, chatA, 'How often is the impeller seal replaced?');
  await rate(s, chatA, liked.message_id, { rating: 'up', note: 'clear and cited' });
  await rate(s, chatA, disliked.message_id, { rating: 'down' });
  // The liked answer is put up for training, reviewed and learned; the disliked one is never offered.
  const training = await ok(await s.call('POST', `/bots/${botId}/train-chats`), 'train');
  if (training.pairs !== 1) throw new Error(`training took ${training.pairs} pairs, not the liked one alone`);
  await ready(s, training.job_id);
  await finalize(s, 'carol', training.job_id, 'auto_approve_pending', 'finalize training');
  if ((await waitForIngest(s, training.job_id)).ingest_status !== 'success')
    throw new Error('the training job was not learned');
  for (let i = 0; ; i++) {
    const again = await ok(await s.call('POST', `/bots/${botId}/train-chats`), 'train again');
    if (again.pairs === 0) break;
    if (i === 50) throw new Error('the learned pair is still offered for training');
    await new Promise((r) => setTimeout(r, 100));
  }
  await ok(
    await s.call('PUT', `/bots/${botId}/prompt`, {
      json: { prompt_template: 'You answer from the pump manual, briefly.' },
    }),
    'prompt',
  );

  const widget = await ok(
    await s.call('POST', '/keys', { json: { name: 'widget', role: 'reader', bots: [botId] } }),
    'key widget',
  );
  const desk = await ok(await s.call('POST', '/keys', { json: { name: 'desk', role: 'reviewer' } }), 'key desk');
  const auditor = await ok(
    await s.call('POST', '/keys', { json: { name: 'auditor', role: 'reader', jobs: [fieldGuideId] } }),
    'key auditor',
  );
  await ok(await s.call('DELETE', '/keys/desk'), 'revoke desk');
  // Used once, so its last_used_at is set.
  const seenByWidget = await ok(await serverClient(s.url, widget.secret).call('GET', '/bots'), 'widget reads');
  if (seenByWidget.total !== 1) throw new Error(`the widget key sees ${seenByWidget.total} bots`);
  await s.stop();

  // Chats sealed from here on (encrypt_chats), beside the plain ones, in the same session and chat too.
  s = await startPrevious(true);
  await chat(s, { session_id: session1, question: 'What does it release?' });
  const first = await chat(s, { job_id: reportId, question: 'How is each page read?' });
  const session2 = first.session_id as string;
  const held2 = await chat(
    s,
    { session_id: session2, question: 'What happens to revenue over the year?', require_approval: true },
    'bob',
  );
  await resume(s, session2, held2.thread_id, {
    action: 'edit',
    edited_answer: 'Revenue grows in every quarter while costs stay almost flat [S1].',
  });
  await idempotent(s, {
    session_id: session2,
    question: 'What does the review cover?',
    idempotency_key: 'report-review-scope',
  });
  const pending = await chat(
    s,
    { session_id: session2, question: 'Which blocks does the report contain?', require_approval: true },
    'bob',
  );

  await botMessage(s, botId, chatA, 'What if the pump delivers no water?');
  const { chat_id: chatB } = await ok(await s.call('POST', `/bots/${botId}/chats`), 'second bot chat');
  await botMessage(s, botId, chatB, 'What should I check the bearings for?');
  const wrong = await botMessage(s, botId, chatB, 'Where is the priming plug?');
  await rate(s, chatB, wrong.message_id, { rating: 'down', note: 'names no place' });
  const { vision_chat_id: visionId } = await ok(await s.call('POST', `/bots/${botId}/vision-chats`), 'vision chat');
  const plate = `data:image/png;base64,${(await ratingPlatePng()).toString('base64')}`;
  const seen = await ok(
    await s.call('POST', `/bots/${botId}/vision-chats/${visionId}`, {
      json: { query: 'Which seal kit does the plate name?', images: [plate] },
    }),
    'vision',
  );
  if (!/S-17/.test(String(seen.response)))
    throw new Error(`the vision answer missed the plate: ${String(seen.response)}`);

  const queries: FixtureQueries = {
    sessions: [session1, session2],
    searches: [
      { collection_name: 'library', query: 'water', mode: 'keyword', top_k: 10 },
      { collection_name: 'library', query: 'page', mode: 'keyword', top_k: 10 },
      { collection_name: 'library', query: 'how do plants make sugar from light', mode: 'vector', top_k: 10 },
      { collection_name: 'library', query: 'quarterly revenue and costs', mode: 'hybrid', top_k: 10 },
      { job_id: reportId, query: 'reading order of the page', mode: 'hybrid', top_k: 5, filters: { pages: [1, 2] } },
      { collection_name: `bot-${botId}`, query: 'impeller seal', mode: 'vector', top_k: 5 },
    ],
    vectorstore: [{ bot_id: botId, body: { query: 'air leak in the suction line', top_k: 3 } }],
  };
  const expected = await readEverything(s, queries);
  await s.stop();

  for (const leftover of ['lectern.db-wal', 'lectern.db-shm'])
    if (existsSync(join(dataDir, leftover))) throw new Error(`${leftover} is left after the server stopped`);
  rmSync(fixtureDir, { recursive: true, force: true });
  mkdirSync(fixtureDir, { recursive: true });
  const skipped = new Set(['models', 'lectern.lock', 'tmp', 'exports']);
  cpSync(dataDir, join(fixtureDir, 'data'), {
    recursive: true,
    filter: (src) => !skipped.has(relative(dataDir, src).split('/')[0]!),
  });
  // Learned already (liked), or rated down: never offered for training again.
  const notOffered = new Set([liked.message_id, disliked.message_id, wrong.message_id]);
  const setup = {
    made_by: { commit: execFileSync('git', ['-C', prevDir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim() },
    service_key: serviceKey,
    settings: { embedding_model: TEST_MODEL, llm_provider: 'extractive', encrypt_chats: true },
    keys: { widget: widget.secret, desk: desk.secret, auditor: auditor.secret },
    ids: {
      field_guide: fieldGuideId,
      report: reportId,
      draft: draftId,
      broken: brokenId,
      bot: botId,
      bot_document: added.job_id,
      training_job: training.job_id,
      chats: { liked_and_disliked: chatA, with_sealed_note: chatB, vision: visionId },
    },
    pending_turn: { session_id: session2, thread_id: pending.thread_id, turn_id: pending.turn_id },
    // What POST /bots/{bot_id}/train-chats offers next: the unrated answers, not the learned one, nor the disliked ones.
    trainable: (expected.bots[botId].chats as string[])
      .flatMap((c) => expected.chats[c].oldest.messages as Json[])
      .filter(
        (m) =>
          m.status === 'complete' &&
          !m.not_found &&
          typeof m.answer === 'string' &&
          m.answer.trim() &&
          !notOffered.has(m.message_id),
      )
      .map((m) => m.message_id),
    queries,
  };
  writeFileSync(join(fixtureDir, 'setup.json'), `${JSON.stringify(setup, null, 2)}\n`);
  writeFileSync(join(fixtureDir, 'expected.json'), `${JSON.stringify(expected, null, 1)}\n`);
  const sizes = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce(
      (n, e) => n + (e.isDirectory() ? sizes(join(dir, e.name)) : statSync(join(dir, e.name)).size),
      0,
    );
  process.stdout.write(`fixture written to ${fixtureDir}: ${(sizes(fixtureDir) / 1024).toFixed(0)} KB\n`);
}

try {
  await main();
} finally {
  await running?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(rootDir, { recursive: true, force: true });
}
