import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { checkVectorDb } from '../../core/embedding/hub-names.js';
import { errors } from '../../schemas/common.js';
import { EmbedAccepted, EmbedBody } from '../../schemas/embed.js';
import { JobParams } from '../../schemas/jobs.js';
import type { ServerDeps } from '../services.js';

export const embedRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/jobs/:job_id/embed',
    {
      schema: {
        tags: ['search'],
        summary: "Embed a finalized job's approved and edited chunks into a vector collection",
        description:
          'Answers 202 once the request is checked; the job shows `embedding` with `index.progress` in GET /jobs/{job_id}, then `indexed` ' +
          '(or goes back, with `error`, if embedding fails). Chunks whose text did not change since the last embed are not embedded again. ' +
          "409 INVALID_STATE unless the job is finalized or indexed; 409 INDEX_MISMATCH when the collection holds another model's or dimension's " +
          'vectors; 409 MODEL_NOT_INSTALLED (the message says how to install it); 502 EMBEDDING_PROVIDER_FAILED when a remote provider fails; ' +
          '400 URL_INVALID for a base_url that is not http(s) or carries credentials; 403 URL_NOT_ALLOWED for one on a loopback, private or ' +
          "metadata address not listed in the setting allowed_private_hosts (nothing is sent to it). LongParser's bodies work: provider " +
          'huggingface or sentence-transformers runs the named hub model here with onnxruntime (404 MODEL_NOT_FOUND when the catalog has ' +
          'no export of it, 409 MODEL_NOT_INSTALLED saying how to get it); a vector_db other than usearch is a 400 naming usearch.',
        params: JobParams,
        body: EmbedBody,
        response: { 202: EmbedAccepted, ...errors(400, 401, 403, 404, 409, 502) },
      },
    },
    async (req, reply) => {
      const { vector_db, ...body } = req.body;
      checkVectorDb(vector_db);
      return reply.status(202).send(await deps.indexer.embedJob(req.params.job_id, body));
    },
  );
};
