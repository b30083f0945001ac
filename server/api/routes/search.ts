import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../schemas/common.js';
import { SearchBody, SearchResponse } from '../../schemas/search.js';
import type { ServerDeps } from '../services.js';

export const searchRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/search',
    {
      schema: {
        tags: ['search'],
        summary: 'Search one job or a whole collection: keyword, vector or hybrid',
        description:
          "hybrid (default) fuses keyword BM25 (the store's full text: FTS5 on the desktop, PostgreSQL on a team server; Chinese, " +
          "Japanese and Thai cut into words, English stemmed, other languages found by the exact word with diacritics folded) and the collection's vector index by score (0.4 × BM25 and 0.6 × cosine, each divided by its " +
          "list's best); `score` is the cosine similarity of " +
          'query and chunk (0..1) in every mode, `rank_score` what ordered them. Tables of contents (entries with dotted leaders and page ' +
          'numbers) come after the other results. top_k defaults to 5. `index_version` pins the search to the index the caller saw: 409 ' +
          'INDEX_MISMATCH once it changed. Filters: chunk_type, pages, ' +
          'page_from/page_to, section. Only indexed content (approved and edited chunks) is searched. 409 INVALID_STATE for a job not embedded yet; ' +
          '404 COLLECTION_NOT_FOUND / JOB_NOT_FOUND; a collection built by a remote provider embeds the query there: 502 ' +
          'EMBEDDING_PROVIDER_FAILED, or 403 URL_NOT_ALLOWED when its address is no longer allowed (setting allowed_private_hosts).',
        body: SearchBody,
        response: { 200: SearchResponse, ...errors(400, 401, 403, 404, 409, 502) },
      },
    },
    async (req) => deps.search(req.body),
  );
};
