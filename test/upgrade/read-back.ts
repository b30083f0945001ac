import { strFromU8, unzipSync } from 'fflate';
import { listPage, type ServerClient } from '../helpers/app.js';

/**
 * Everything a client can read of a data folder through the API, gathered in one JSON value: the generator
 * writes it as the fixture's expected answers (with the version that wrote the folder), the upgrade test
 * reads it again with the current version and compares. Only reads: nothing here changes the folder.
 */

/** What the fixture names that no list route finds: job chat sessions have no list, searches are chosen. */
export interface FixtureQueries {
  sessions: string[];
  searches: Record<string, unknown>[];
  /** Vector-store searches of a bot: POST /bots/{bot_id}/vectorstore. */
  vectorstore: { bot_id: string; body: Record<string, unknown> }[];
}

type Json = any;

/** The answer's JSON, or an error naming the request when it is not the status a read must answer. */
async function read(client: Pick<ServerClient, 'call'>, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await client.call(method, path, body === undefined ? {} : { json: body });
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** Every item of a paged list (a JSON array with X-Total-Count, or {items, total}), in the server's order. */
async function readAll(client: Pick<ServerClient, 'call'>, path: string): Promise<Json[]> {
  const items: Json[] = [];
  for (let skip = 0; ; ) {
    const page = await listPage(client, `${path}${path.includes('?') ? '&' : '?'}skip=${skip}&limit=100`);
    if (!Array.isArray(page.items)) throw new Error(`GET ${path} answered no list: ${JSON.stringify(page)}`);
    items.push(...page.items);
    skip += page.items.length;
    if (skip >= page.total || page.items.length === 0) return items;
  }
}

const PAGED = ['pdf', 'image'];

const jsonl = (text: string): Json[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/**
 * The export zip, as a reader of it sees the content: the file list, the JSON and JSONL members parsed, the
 * document as text. The manifest's own time of export and its byte counts and hashes of the JSON members
 * (which change whenever a view gains a field) are left to the parsed members themselves.
 */
async function readExport(client: Pick<ServerClient, 'call'>, jobId: string): Promise<Json> {
  const res = await client.call('GET', `/jobs/${jobId}/export`);
  if (res.status !== 200) throw new Error(`GET /jobs/${jobId}/export answered ${res.status}: ${await res.text()}`);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  const byName = new Map(Object.entries(files).map(([name, bytes]) => [name.replace(/^.*\//, ''), bytes]));
  const text = (name: string): string => {
    const bytes = byName.get(name);
    if (!bytes) throw new Error(`the export of ${jobId} holds no ${name}`);
    return strFromU8(bytes);
  };
  const {
    exported_at: _exportedAt,
    files: listed,
    ...manifest
  } = JSON.parse(text('manifest.json')) as { exported_at: string; files: { name: string; sha256: string }[] };
  const original = listed.find((f) => f.name.startsWith('original-'));
  return {
    files: [...byName.keys()].sort(),
    manifest: { ...manifest, files: listed.map((f) => f.name), original_sha256: original?.sha256 ?? null },
    document_md: text('document.md'),
    blocks_json: JSON.parse(text('blocks.json')),
    chunks_json: JSON.parse(text('chunks.json')),
    audit_jsonl: jsonl(text('audit.jsonl')),
    rejected_jsonl: jsonl(text('rejected.jsonl')),
  };
}

export async function readEverything(client: Pick<ServerClient, 'call'>, q: FixtureQueries): Promise<Json> {
  const jobsList = await read(client, 'GET', '/jobs?limit=100');
  if (jobsList.total > jobsList.jobs.length)
    throw new Error(`GET /jobs holds ${jobsList.total} jobs, more than one page`);
  const jobs: Record<string, Json> = {};
  for (const { job_id: id } of jobsList.jobs as { job_id: string }[]) {
    const job = await read(client, 'GET', `/jobs/${id}`);
    jobs[id] = {
      job,
      blocks: await readAll(client, `/jobs/${id}/blocks`),
      chunks: await readAll(client, `/jobs/${id}/chunks`),
      audit: await readAll(client, `/jobs/${id}/audit`),
      // Only paged formats have pages (others answer 409 INVALID_STATE).
      pages: PAGED.includes(job.format) ? await readAll(client, `/jobs/${id}/pages`) : null,
      export: ['finalized', 'indexed'].includes(job.status) ? await readExport(client, id) : null,
    };
  }

  const sessions: Record<string, Json> = {};
  for (const id of q.sessions) sessions[id] = await read(client, 'GET', `/chat/sessions/${id}`);

  const botsList = await read(client, 'GET', '/bots?limit=100');
  const bots: Record<string, Json> = {};
  const chats: Record<string, Json> = {};
  for (const { bot_id: id } of botsList.items as { bot_id: string }[]) {
    const chatIds = (await read(client, 'GET', `/bots/${id}/chats`)) as string[];
    bots[id] = { bot: await read(client, 'GET', `/bots/${id}`), chats: chatIds };
    for (const chatId of chatIds) {
      chats[chatId] = {
        oldest: await read(client, 'GET', `/chats/${chatId}`),
        newest: await read(client, 'GET', `/chats/${chatId}?order=newest`),
      };
    }
  }

  const searches = [];
  for (const body of q.searches) searches.push({ body, answer: await read(client, 'POST', '/search', body) });
  const vectorstore = [];
  for (const { bot_id, body } of q.vectorstore)
    vectorstore.push({ bot_id, body, answer: await read(client, 'POST', `/bots/${bot_id}/vectorstore`, body) });

  return {
    jobs_list: jobsList,
    jobs,
    chat_sessions: sessions,
    bots_list: botsList,
    bots,
    chats,
    keys: await read(client, 'GET', '/keys'),
    openai_models: await read(client, 'GET', '/v1/models'),
    searches,
    vectorstore,
  };
}
