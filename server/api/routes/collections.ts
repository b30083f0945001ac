import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../schemas/common.js';
import { CollectionParams, ReindexBody, ReindexView } from '../../schemas/reindex.js';
import type { ServerDeps } from '../services.js';

export const collectionsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/collections/:name/reindex',
    {
      schema: {
        tags: ['search'],
        summary: 'Re-embed every chunk of a collection with another model, in the background',
        description:
          'Answers 202 once the request is checked; follow it with GET /collections/{name}/reindex. Searches keep reading the ' +
          "collection's index, unchanged, while the new vectors go into an index of their own; when every chunk is there the " +
          'collection switches to the new model in one step (a search answers wholly from the old index or wholly from the ' +
          'new one) and the old index is removed. A restart resumes it where it was. 404 COLLECTION_NOT_FOUND; 409 ' +
          'REINDEX_RUNNING when one runs; 409 SAME_MODEL for the model the collection has; 409 MODEL_NOT_INSTALLED (the ' +
          'message says how to install it) and 404 MODEL_NOT_FOUND, as for embeds; 409 INVALID_STATE while a job is ' +
          'embedding into the collection. Embeds into the collection answer 409 REINDEX_RUNNING until it ends.',
        params: CollectionParams,
        body: ReindexBody,
        response: { 202: ReindexView, ...errors(400, 401, 403, 404, 409, 502) },
      },
    },
    async (req, reply) => reply.status(202).send(await deps.reindexer.start(req.params.name, req.body)),
  );

  app.get(
    '/collections/:name/reindex',
    {
      schema: {
        tags: ['search'],
        summary: "The collection's latest reindex: its progress, or how it ended",
        description: '404 COLLECTION_NOT_FOUND; 404 REINDEX_NOT_FOUND when the collection was never reindexed.',
        params: CollectionParams,
        response: { 200: ReindexView, ...errors(400, 401, 403, 404) },
      },
    },
    async (req) => deps.reindexer.status(req.params.name),
  );

  app.delete(
    '/collections/:name/reindex',
    {
      schema: {
        tags: ['search'],
        summary: "Cancel the collection's running reindex",
        description:
          'The collection keeps its model and index, searches answer as before, and the partial new index is removed. ' +
          '404 COLLECTION_NOT_FOUND or REINDEX_NOT_FOUND; 409 INVALID_STATE when the last reindex is not running.',
        params: CollectionParams,
        response: { 200: ReindexView, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req) => deps.reindexer.cancel(req.params.name),
  );
};
