import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../core/errors.js';
import { ocrLanguageOption } from '../../core/ocr/ocr-languages.js';
import { reviewCounts } from '../../core/review/review-state.js';
import { errors } from '../../schemas/common.js';
import { JobList, JobListQuery, JobParams, UploadAccepted } from '../../schemas/jobs.js';
import { receiveUpload } from '../receive-upload.js';
import type { ServerDeps } from '../services.js';

const tags = ['jobs'];

function intField(fields: Record<string, string>, name: string, fallback: number, min: number, max: number): number {
  const raw = fields[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AppError('VALIDATION_FAILED', `${name} must be an integer from ${min} to ${max}`, [{ field: name, value: raw }]);
  }
  return n;
}

export const jobsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  const { jobs, settings, files, db } = deps;

  app.post(
    '/jobs',
    {
      schema: {
        tags,
        summary: 'Upload a document and start processing',
        description:
          'multipart/form-data with a `file` field (PDF, DOCX, HTML, Markdown, plain text, or a PNG, JPEG, TIFF or WebP image; the type is read from the content) and optional ' +
          '`chunk_size` and `chunk_overlap` fields (tokens) and `ocr_language` (tesseract code of an installed language, default `eng`; used for PDF pages without a text layer and for images; ' +
          'language data that is not installed answers 400 OCR_LANGUAGE_MISSING). Answers 201 at once; processing runs in the background: poll GET /jobs/{job_id}.',
        consumes: ['multipart/form-data'],
        // Documents the form for the explorer; the fields themselves are read and checked by receiveUpload.
        body: Type.Object({
          file: Type.Optional(Type.String({ format: 'binary', description: 'The document' })),
          chunk_size: Type.Optional(Type.Integer({ minimum: 32, maximum: 8192, description: 'Target chunk size in tokens' })),
          chunk_overlap: Type.Optional(Type.Integer({ minimum: 0, description: 'Tokens repeated between consecutive chunks of a section' })),
          ocr_language: Type.Optional(Type.String({ description: 'OCR language data to use (tesseract code, e.g. eng); default eng' })),
        }),
        response: { 201: UploadAccepted, ...errors(400, 401, 413, 415) },
      },
    },
    async (req, reply) => {
      const upload = await receiveUpload(req, files.tmpDir, settings.max_upload_bytes);
      try {
        const chunkSize = intField(upload.fields, 'chunk_size', settings.chunk_size, 32, 8192);
        const options = {
          chunk_size: chunkSize,
          chunk_overlap: intField(upload.fields, 'chunk_overlap', Math.min(settings.chunk_overlap, chunkSize - 1), 0, chunkSize - 1),
          ocr_language: ocrLanguageOption(upload.fields.ocr_language),
        };
        const job = jobs.create({ ...upload, options });
        return reply.status(201).send(job);
      } catch (err) {
        files.discardTmp(upload.tmpPath);
        throw err;
      }
    },
  );

  app.get('/jobs', { schema: { tags, summary: 'List jobs', querystring: JobListQuery, response: { 200: JobList, ...errors(400, 401) } } }, async (req) =>
    jobs.list(req.query),
  );

  app.get(
    '/jobs/:job_id',
    { schema: { tags, summary: 'Job status, per-page progress and review counts', params: JobParams, response: { 200: Type.Ref('Job'), ...errors(401, 404) } } },
    async (req) => ({ ...jobs.get(req.params.job_id), review: reviewCounts(db, req.params.job_id), index: deps.indexer.status(req.params.job_id) }),
  );

  app.delete(
    '/jobs/:job_id',
    { schema: { tags, summary: 'Delete a job, its rows and its files', params: JobParams, response: { 204: Type.Null(), ...errors(401, 404) } } },
    async (req, reply) => {
      jobs.delete(req.params.job_id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/jobs/:job_id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a queued or processing job',
        description: 'Stops its worker task at once; the job ends `cancelled`. Other states answer 409 INVALID_STATE.',
        params: JobParams,
        response: { 200: Type.Ref('Job'), ...errors(401, 404, 409) },
      },
    },
    async (req) => jobs.cancel(req.params.job_id),
  );
};
