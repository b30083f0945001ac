import type { Role } from '../core/keys/roles.js';
import type { ScopedField } from '../core/keys/scope-check.js';

export interface RouteAccess {
  /** The weakest role that may use the route. */
  role: Role;
  /** `refused`: a scoped key gets 403 here, as the route makes something no scope covers (a new job or bot). */
  scoped?: 'refused';
  /**
   * Body fields that name a scoped thing under another name (the OpenAI route's `model: bot:<bot_id>`):
   * checked against a scoped key's scope like `bot_id`, with `prefix` taken off when present.
   */
  aliases?: Record<string, { field: ScopedField; prefix?: string }>;
}

const reader: RouteAccess = { role: 'reader' };
const reviewer: RouteAccess = { role: 'reviewer' };
const admin: RouteAccess = { role: 'admin' };

/**
 * Which role each API route needs, by method and URL pattern as the route table has them. A reader reads,
 * searches and chats; a reviewer also changes content (uploads, review, finalize, embed, re-OCR, bots and
 * their documents); only an admin deletes. Public routes (docs, the UI's files) need no entry; a route
 * without one needs admin, and test/api/keys-roles.test.ts fails until it has one.
 */
export const ACCESS_POLICY = {
  'GET /health': reader,
  'GET /models': reader,
  // Models are the whole server's: only an unscoped admin downloads, cancels or installs one.
  'POST /models/:model_id/pull': { role: 'admin', scoped: 'refused' },
  'DELETE /models/:model_id/pull': { role: 'admin', scoped: 'refused' },
  'POST /models/:model_id/import': { role: 'admin', scoped: 'refused' },
  'POST /models/import': { role: 'admin', scoped: 'refused' },
  // OCR languages too are the whole server's: reading the list is a read; only an unscoped admin changes it.
  'GET /ocr-languages': reader,
  'POST /ocr-languages/:code': { role: 'admin', scoped: 'refused' },
  'DELETE /ocr-languages/:code': { role: 'admin', scoped: 'refused' },

  'POST /jobs': { role: 'reviewer', scoped: 'refused' },
  'GET /jobs': reader,
  'GET /jobs/:job_id': reader,
  'GET /jobs/:job_id/events': reader,
  'DELETE /jobs/:job_id': admin,
  'POST /jobs/:job_id/cancel': reviewer,
  'GET /jobs/:job_id/pages': reader,
  'GET /jobs/:job_id/pages/:page/image': reader,
  'POST /jobs/:job_id/pages/:page/ocr': reviewer,
  'GET /jobs/:job_id/blocks': reader,
  'GET /jobs/:job_id/blocks/:block_id': reader,
  'PATCH /jobs/:job_id/blocks/:block_id': reviewer,
  'POST /jobs/:job_id/blocks/review': reviewer,
  'POST /jobs/:job_id/blocks/undo': reviewer,
  'POST /jobs/:job_id/blocks/:block_id/split': reviewer,
  'POST /jobs/:job_id/blocks/merge': reviewer,
  'POST /jobs/:job_id/blocks/:block_id/move': reviewer,
  'GET /jobs/:job_id/chunks': reader,
  'PATCH /jobs/:job_id/chunks/:chunk_id': reviewer,
  'POST /jobs/:job_id/rechunk': reviewer,
  'POST /jobs/:job_id/finalize': reviewer,
  'GET /jobs/:job_id/export': reader,
  'GET /jobs/:job_id/audit': reader,
  'POST /jobs/:job_id/embed': reviewer,
  // A collection may hold jobs of many scopes: a reindex is the whole collection's, so no scoped key reaches it.
  'POST /collections/:name/reindex': { role: 'reviewer', scoped: 'refused' },
  'GET /collections/:name/reindex': { role: 'reader', scoped: 'refused' },
  'DELETE /collections/:name/reindex': { role: 'admin', scoped: 'refused' },
  // A purge destroys content for good (LongParser: admin keys only).
  'POST /jobs/:job_id/blocks/:block_id/purge': admin,
  'POST /jobs/:job_id/chunks/:chunk_id/purge': admin,

  'POST /search': reader,
  'POST /chat/sessions': reader,
  'GET /chat/sessions/:session_id': reader,
  'DELETE /chat/sessions/:session_id': admin,
  'POST /chat/sessions/:session_id/turns/:turn_id/feedback': reader,
  'POST /chat': reader,
  'POST /chat/resume': reviewer,

  'POST /bots': { role: 'reviewer', scoped: 'refused' },
  'GET /bots': reader,
  'GET /bots/:bot_id': reader,
  'POST /bots/:bot_id/build': reviewer,
  'POST /bots/:bot_id/load': reader,
  'DELETE /bots/:bot_id': admin,
  'PUT /bots/:bot_id/prompt': reviewer,
  'POST /bots/:bot_id/documents/path': reviewer,
  'POST /bots/:bot_id/documents/link': reviewer,
  'POST /bots/:bot_id/documents/query': reviewer,
  'POST /bots/:bot_id/documents/upload': reviewer,
  'POST /bots/:bot_id/chats': reader,
  'GET /bots/:bot_id/chats': reader,
  'GET /chats/:chat_id': reader,
  'POST /bots/:bot_id/chats/:chat_id': reader,
  'POST /bots/:bot_id/vectorstore': reader,
  // Whoever chats rates the answers; a rating changes nothing until a reviewer puts chats up for training.
  'POST /chats/:chat_id/messages/:message_id/feedback': reader,
  'POST /chats/:chat_id/resume': reviewer,
  'GET /jobs/:job_id/conversations': reader,
  'GET /bots/:bot_id/conversations': reader,
  'PATCH /conversations/:conversation_id': reviewer,
  'DELETE /conversations/:conversation_id': admin,
  'POST /bots/:bot_id/train-chats': reviewer,
  // A vision chat is one of the bot's chats: the bot in the path is checked, and the route checks the chat is the bot's.
  'POST /bots/:bot_id/vision-chats': reader,
  'POST /bots/:bot_id/vision-chats/:vision_chat_id': reader,

  // Keys: an admin key scoped to some bots or jobs could otherwise make itself an unscoped one.
  'GET /keys': { role: 'admin', scoped: 'refused' },
  'POST /keys': { role: 'admin', scoped: 'refused' },
  'DELETE /keys/:name': { role: 'admin', scoped: 'refused' },

  'GET /v1/models': reader,
  'POST /v1/chat/completions': { role: 'reader', aliases: { model: { field: 'bot_id', prefix: 'bot:' } } },
} satisfies Record<string, RouteAccess>;

/** The scoped ids a body names through the route's aliases, as the scope check reads fields. */
export function aliasedIds(rule: RouteAccess, body: unknown): Partial<Record<ScopedField, string>> {
  if (!rule.aliases || typeof body !== 'object' || body === null) return {};
  const ids: Partial<Record<ScopedField, string>> = {};
  for (const [name, { field, prefix }] of Object.entries(rule.aliases)) {
    const v = (body as Record<string, unknown>)[name];
    if (typeof v === 'string') ids[field] = prefix && v.startsWith(prefix) ? v.slice(prefix.length) : v;
  }
  return ids;
}

/** The policy entry of a route (HEAD is the GET route's), or undefined when the table lacks one. */
export function accessOf(method: string, url: string): RouteAccess | undefined {
  const key = `${method === 'HEAD' ? 'GET' : method} ${url}`;
  return Object.hasOwn(ACCESS_POLICY, key) ? (ACCESS_POLICY as Record<string, RouteAccess>)[key] : undefined;
}
