import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listRevisions } from '../../core/audit/revisions.js';
import { findJob } from '../../core/jobs/find-job.js';
import { errors, fileResponse } from '../../schemas/common.js';
import { AuditQuery, JobParams, RevisionList } from '../../schemas/jobs.js';
import { sendPage } from '../paged-reply.js';
import type { ServerDeps } from '../services.js';

const tags = ['output'];

export const outputRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.get(
    '/jobs/:job_id/export',
    {
      schema: {
        tags,
        summary: 'Download the finalized output as a .zip',
        description:
          'document.md (accepted content in reading order), blocks.json and chunks.json (JSON arrays, as LongParser writes them), blocks.jsonl, ' +
          'chunks.jsonl, audit.jsonl, rejected.jsonl, the original file and ' +
          'manifest.json (job, source sha256, app version, counts, sha256 of every file). 409 INVALID_STATE before finalize; ' +
          '502 OBJECT_STORE_FAILED when the object store cannot read the original or keep the zip (nothing is left of the export).',
        params: JobParams,
        response: { 200: fileResponse('application/zip', 'The export, as a zip file'), ...errors(401, 404, 409, 502) },
      },
    },
    async (req, reply) => {
      const made = await deps.exportJob(req.params.job_id);
      made.stream.once('close', made.cleanup);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${made.fileName}"`)
        .send(made.stream);
    },
  );

  app.get(
    '/jobs/:job_id/audit',
    {
      schema: {
        tags,
        summary: 'Revision audit trail, newest first',
        params: JobParams,
        querystring: AuditQuery,
        response: { 200: RevisionList, ...errors(400, 401, 404) },
      },
    },
    async (req, reply) => {
      await findJob(deps.store, req.params.job_id);
      return sendPage(req, reply, await listRevisions(deps.store, req.params.job_id, req.query));
    },
  );
};
