/**
 * What the running server offers beyond the review API, read from its public /openapi.json. Page images,
 * confidence, embedding, search and chat came to the server after the review API; the UI shows each feature
 * only where the server has the route, so one build works against older and newer servers alike.
 */
export interface Capabilities {
  /** GET /jobs/{id}/pages/{page}/image */
  pageImage: boolean;
  /** GET /jobs/{id}/pages: each page's size, so boxes are drawn to scale rather than on an estimated page. */
  pageSizes: boolean;
  /** POST /jobs/{id}/pages/{page}/ocr: "re-read region" on the page. */
  pageReocr: boolean;
  /** Values of the `sort` query parameter of GET /jobs/{id}/blocks, when it has one. */
  blockSorts: string[];
  /** GET /jobs/{id}/blocks?flagged=true */
  flaggedFilter: boolean;
  embed: boolean;
  models: boolean;
  /** POST /models/{id}/pull and /import: models downloaded and installed from the desk. */
  modelPull: boolean;
  modelImport: boolean;
  /** POST /models/import: a model the catalog does not know (a GGUF, an ONNX embedding folder), under a name given. */
  customModelImport: boolean;
  search: boolean;
  chat: boolean;
  chatResume: boolean;
  /** POST /chat/sessions/{id}/turns/{id}/feedback: thumbs up and down on a job's answers. */
  chatFeedback: boolean;
  /** GET /jobs/{id}/conversations, /bots/{id}/conversations, PATCH and DELETE /conversations/{id}: the list of past conversations. */
  conversations: boolean;
  /** GET and POST /bots: the Bots screen. */
  bots: boolean;
  /** POST /bots/{id}/documents/upload: files from this machine by picker or drop. */
  botUpload: boolean;
  /** POST /bots/{id}/documents/link and /documents/query: links and encyclopedia searches. */
  botLinks: boolean;
  botEncyclopedia: boolean;
  /** POST /bots/{id}/vision-chats: questions with images dropped or pasted. */
  vision: boolean;
  /** POST /chats/{id}/messages/{id}/feedback: thumbs up and down. */
  feedback: boolean;
  /** POST /chats/{id}/resume: a bot's answers held for approval. */
  botResume: boolean;
  /** POST /bots/{id}/train-chats: "learn from chats". */
  trainChats: boolean;
}

interface OpenApiParam {
  name: string;
  in: string;
  schema?: { enum?: unknown[]; anyOf?: { const?: unknown; enum?: unknown[] }[] };
}
interface OpenApiDoc {
  paths?: Record<string, Record<string, { parameters?: OpenApiParam[] }>>;
}

/** `/jobs/{job_id}/pages/{page}/image` and `/jobs/{id}/pages/{n}/image` are the same route. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

function enumOf(p: OpenApiParam | undefined): string[] {
  const s = p?.schema;
  const values = s?.enum ?? s?.anyOf?.flatMap((a) => a.enum ?? (a.const !== undefined ? [a.const] : [])) ?? [];
  return values.filter((v): v is string => typeof v === 'string');
}

export function readCapabilities(doc: OpenApiDoc): Capabilities {
  const paths = doc.paths ?? {};
  const has = (method: string, path: string) =>
    Object.entries(paths).some(([p, ops]) => shape(p) === shape(path) && method in ops);
  const blockParams = Object.entries(paths).find(([p]) => shape(p) === '/jobs/{}/blocks')?.[1]?.get?.parameters ?? [];
  const sortParam = blockParams.find((p) => p.in === 'query' && p.name === 'sort');
  return {
    pageImage: has('get', '/jobs/{}/pages/{}/image'),
    pageSizes: has('get', '/jobs/{}/pages'),
    pageReocr: has('post', '/jobs/{}/pages/{}/ocr'),
    blockSorts: sortParam ? enumOf(sortParam) : [],
    flaggedFilter: blockParams.some((p) => p.in === 'query' && p.name === 'flagged'),
    embed: has('post', '/jobs/{}/embed'),
    models: has('get', '/models'),
    modelPull: has('post', '/models/{}/pull'),
    modelImport: has('post', '/models/{}/import'),
    customModelImport: has('post', '/models/import'),
    search: has('post', '/search'),
    chat: has('post', '/chat') && has('post', '/chat/sessions'),
    chatResume: has('post', '/chat/resume'),
    chatFeedback: has('post', '/chat/sessions/{}/turns/{}/feedback'),
    conversations:
      has('get', '/jobs/{}/conversations') &&
      has('get', '/bots/{}/conversations') &&
      has('patch', '/conversations/{}') &&
      has('delete', '/conversations/{}'),
    bots: has('get', '/bots') && has('post', '/bots'),
    botUpload: has('post', '/bots/{}/documents/upload'),
    botLinks: has('post', '/bots/{}/documents/link'),
    botEncyclopedia: has('post', '/bots/{}/documents/query'),
    vision: has('post', '/bots/{}/vision-chats') && has('post', '/bots/{}/vision-chats/{}'),
    feedback: has('post', '/chats/{}/messages/{}/feedback'),
    botResume: has('post', '/chats/{}/resume'),
    trainChats: has('post', '/bots/{}/train-chats'),
  };
}

export const NO_CAPABILITIES: Capabilities = readCapabilities({});

export async function fetchCapabilities(baseUrl: string): Promise<Capabilities> {
  try {
    const res = await fetch(`${baseUrl}/openapi.json`);
    return res.ok ? readCapabilities((await res.json()) as OpenApiDoc) : NO_CAPABILITIES;
  } catch {
    return NO_CAPABILITIES;
  }
}
