import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../core/errors.js';
import { BotParams } from '../../schemas/bots.js';
import { errors, StringEnum } from '../../schemas/common.js';
import { receiveUpload } from '../receive-upload.js';
import type { ServerDeps } from '../services.js';

const tags = ['bots'];

const UploadAdded = Type.Object({
  job_id: Type.String({ description: "The document's job (poll GET /jobs/{job_id}: `ingest_status`)" }),
  status: StringEnum(['pending', 'duplicate'] as const, {
    description: 'pending, or duplicate when the bot already holds this content (its job)',
  }),
});

function reviewField(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new AppError('VALIDATION_FAILED', 'review must be true or false', [
    { field: 'review', value: raw.slice(0, 20) },
  ]);
}

/**
 * A file sent from the client (the desk's picker and drops) as a bot's document: the bots API otherwise takes
 * paths on this machine, links and encyclopedia searches, none of which a browser can hand over.
 */
export const botUploadsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  app.post(
    '/bots/:bot_id/documents/upload',
    {
      schema: {
        tags,
        summary: 'Upload a document to a bot',
        description:
          'multipart/form-data with a `file` field, checked as POST /jobs checks it (413 over max_upload_bytes; 415 when the content is not a PDF, DOCX, ' +
          'XLSX, PPTX, CSV, HTML, Markdown, text or PNG, JPEG, TIFF or WebP image) and an optional `review` field (`true`: the document waits at ready_for_review and ' +
          'reaches the bot once a person finalizes it). The job carries the bot and `source.kind: upload`; the same content twice in one bot is added ' +
          'once (`duplicate`, with the existing job).',
        consumes: ['multipart/form-data'],
        params: BotParams,
        // Documents the form for the explorer; the fields themselves are read and checked by receiveUpload.
        body: Type.Object({
          file: Type.Optional(Type.String({ format: 'binary', description: 'The document' })),
          review: Type.Optional(
            Type.Boolean({ description: "true: wait for a person's review before the bot uses it" }),
          ),
        }),
        response: { 200: UploadAdded, ...errors(400, 401, 404, 413, 415, 502) },
      },
    },
    async (req) => {
      // An unknown bot is 404 before its body is read.
      await deps.bots.get(req.params.bot_id);
      const upload = await receiveUpload(req, deps.files.tmpDir, deps.settings.max_upload_bytes);
      try {
        const added = await deps.botDocuments.addUpload(req.params.bot_id, upload, reviewField(upload.fields.review));
        return { job_id: added.job_id, status: added.status };
      } catch (err) {
        deps.files.discardTmp(upload.tmpPath);
        throw err;
      }
    },
  );
};
