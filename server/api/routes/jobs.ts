import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../core/errors.js';
import { findJobStatus } from '../../core/jobs/find-job.js';
import { jobView } from '../../core/views.js';
import { languagesDirOf, ocrLanguageOption } from '../../core/ocr/ocr-languages.js';
import { errors, eventStream, StreamError } from '../../schemas/common.js';
import { JobList, JobListQuery, JobParams, UploadAccepted } from '../../schemas/jobs.js';
import { receiveUpload } from '../receive-upload.js';
import { uploadAnswer } from '../upload-answer.js';
import { openSse } from '../sse.js';
import { describeFailure } from '../../core/errors.js';
import type { ServerDeps } from '../services.js';

const tags = ['jobs'];

/** States in which a job has work running: a follower's stream stays open through them. */
const WORKING = new Set(['queued', 'processing', 'finalizing', 'embedding']);
/** How often a follower's job is read again for changes made outside the job runner. */
const EVENTS_BEAT_MS = 1000;
/** How long a follower's stream waits for a team server's database that went away before it gives up. */
const EVENTS_OUTAGE_MS = 60_000;

/**
 * A job event's id: a digest of the job as sent. Any node sends the same id for the same state, so a client
 * whose node died resumes on another with Last-Event-ID (an id counted per process would mean nothing
 * there), and the state it already has is not sent twice.
 */
const eventIdOf = (json: string): string => createHash('sha256').update(json).digest('base64url').slice(0, 22);

function intField(fields: Record<string, string>, name: string, fallback: number, min: number, max: number): number {
  const raw = fields[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AppError('VALIDATION_FAILED', `${name} must be an integer from ${min} to ${max}`, [
      { field: name, value: raw },
    ]);
  }
  return n;
}

export const jobsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  const { jobs, settings, files, store } = deps;

  app.post(
    '/jobs',
    {
      schema: {
        tags,
        summary: 'Upload a document and start processing',
        description:
          'multipart/form-data with a `file` field (PDF, DOCX, XLSX, PPTX, CSV, HTML, Markdown, plain text, or a PNG, JPEG, TIFF or WebP image; the type is read from the content: ' +
          "a spreadsheet's sheets and a CSV become table blocks, a presentation's slides blocks whose `page` is the slide number) and optional " +
          '`chunk_size` and `chunk_overlap` fields (tokens) and `ocr_language` (tesseract code of an installed language, default `eng`; used for PDF pages without a text layer and for images; ' +
          'several joined with `+`, e.g. `eng+deu`; a language that is not installed answers 409 OCR_LANGUAGE_MISSING with the command that adds it, an unknown code 400 OCR_LANGUAGE_UNKNOWN listing the known ones). Answers 201 at once; processing runs in the background: poll GET /jobs/{job_id}. ' +
          'An object store that cannot keep the upload answers 502 OBJECT_STORE_FAILED (`details.reason`: unreachable, bucket_missing, access_denied, full…), and no job is made.',
        consumes: ['multipart/form-data'],
        // Documents the form for the explorer; the fields themselves are read and checked by receiveUpload.
        body: Type.Object({
          file: Type.Optional(Type.String({ format: 'binary', description: 'The document' })),
          chunk_size: Type.Optional(
            Type.Integer({ minimum: 32, maximum: 8192, description: 'Target chunk size in tokens' }),
          ),
          chunk_overlap: Type.Optional(
            Type.Integer({ minimum: 0, description: 'Tokens repeated between consecutive chunks of a section' }),
          ),
          ocr_language: Type.Optional(
            Type.String({
              description:
                'OCR languages to read with (tesseract codes joined with +, e.g. eng or eng+deu; `lectern languages list` shows them); default eng',
            }),
          ),
        }),
        response: { 201: UploadAccepted, ...errors(400, 401, 409, 413, 415, 502) },
      },
    },
    async (req, reply) => {
      const upload = await receiveUpload(req, files.tmpDir, settings.max_upload_bytes);
      try {
        const chunkSize = intField(upload.fields, 'chunk_size', settings.chunk_size, 32, 8192);
        const options = {
          chunk_size: chunkSize,
          chunk_overlap: intField(
            upload.fields,
            'chunk_overlap',
            Math.min(settings.chunk_overlap, chunkSize - 1),
            0,
            chunkSize - 1,
          ),
          ocr_language: ocrLanguageOption(upload.fields.ocr_language, languagesDirOf(settings.data_dir)),
        };
        const job = await jobs.create({ ...upload, options });
        return reply.status(201).send(uploadAnswer(job, req.access?.name ?? ''));
      } catch (err) {
        files.discardTmp(upload.tmpPath);
        throw err;
      }
    },
  );

  app.get(
    '/jobs',
    {
      schema: {
        tags,
        summary: 'List jobs',
        querystring: JobListQuery,
        response: { 200: JobList, ...errors(400, 401) },
      },
    },
    async (req) => {
      const { items, ...paging } = await jobs.list(req.query, req.access?.scope);
      const tallies = await store.jobs.blockTallies(items.map((j) => j.job_id));
      return { jobs: items.map((j) => ({ ...j, review_progress: tallies.get(j.job_id) })), ...paging };
    },
  );

  // Read together (on a team server one statement): followers read the job at every change.
  const jobStatus = async (jobId: string) => {
    const { job, ocr, review, index } = await findJobStatus(store, jobId);
    return { ...jobView(job, ocr), review, review_progress: review.blocks, index: await deps.indexer.statusOf(index) };
  };

  app.get(
    '/jobs/:job_id',
    {
      schema: {
        tags,
        summary: 'Job status, per-page progress and review counts',
        params: JobParams,
        response: { 200: Type.Ref('Job'), ...errors(401, 404) },
      },
    },
    async (req) => jobStatus(req.params.job_id),
  );

  app.get(
    '/jobs/:job_id/events',
    {
      schema: {
        tags,
        summary: 'Follow a job as it changes (Server-Sent Events)',
        description:
          'text/event-stream of `job` events, each the job as GET /jobs/{job_id} answers it: one at once, then one whenever its status, ' +
          'progress or counts change. The stream ends after an event whose status has no work running (anything but queued, processing, ' +
          'finalizing and embedding), so a client can wait for an upload to be ready without polling. A job deleted meanwhile ends it with ' +
          'an `error` event ({code, message}). An unknown job answers 404 JOB_NOT_FOUND before the stream starts. ' +
          'Each `job` event has an `id`: a digest of the job as sent, the same on every node of a team server for the same state. A client ' +
          'that lost the stream (its node stopped) reconnects, to any node, with that id as `Last-Event-ID`: the stream then starts with the ' +
          'job as it is now, unless that is what the client last had; if that last event was already the end (no work running), the answer ' +
          'is 204 and no stream (an EventSource then stops reconnecting). Every event is the whole job, so nothing missed needs replaying. ' +
          'A team server whose database is restarting (or has not answered within database_timeout_ms) answers 503 DATABASE_UNAVAILABLE before ' +
          'the stream starts; a stream already open waits ' +
          'for the database and goes on, and ends with an `error` event DATABASE_UNAVAILABLE only after a minute without it.',
        params: JobParams,
        headers: Type.Object({
          'last-event-id': Type.Optional(
            Type.String({ maxLength: 200, description: 'The `id` of the last event a client had, when it reconnects' }),
          ),
        }),
        response: {
          200: eventStream(
            { job: Type.Ref('Job'), error: StreamError },
            "The job's `job` events, or an `error` event",
            { id: "A `job` event's id: a digest of its data" },
          ),
          204: Type.Null({
            description: 'Last-Event-ID names the job as it is now, and no work runs on it: nothing more will come',
          }),
          ...errors(401, 404),
        },
      },
    },
    async (req, reply) => {
      const jobId = req.params.job_id;
      const resumedFrom = req.headers['last-event-id'];
      const first = await jobStatus(jobId); // 404 (or 503) here, as JSON, before the stream starts
      const firstJson = JSON.stringify(first);
      if (resumedFrom !== undefined && eventIdOf(firstJson) === resumedFrom && !WORKING.has(first.status))
        return reply.status(204).send(null);
      const sse = openSse(reply);
      // What the client has: after a reconnect with Last-Event-ID, that state is not sent again.
      let lastId = resumedFrom ?? '';
      let stopped = false;
      let unreachableSince: number | undefined;
      const stop = (): void => {
        stopped = true;
        clearInterval(beat);
        unwatch();
        sse.end();
      };
      // Sends the job when it differs from the last one sent; ends the stream once no work runs.
      const send = (job: typeof first, json = JSON.stringify(job)): void => {
        const id = eventIdOf(json);
        if (id !== lastId) sse.send('job', job, id);
        lastId = id;
        if (!WORKING.has(job.status)) stop();
      };
      // One read at a time, in order, so an older state is never sent after a newer one; at most one waits
      // behind the running one (it reads whatever changed meanwhile), so reads of a database that answers
      // slowly or not at all do not pile up.
      let reading = Promise.resolve();
      let waiting = false;
      const push = (): void => {
        if (waiting) return;
        waiting = true;
        reading = reading.then(async () => {
          waiting = false;
          if (stopped) return;
          try {
            const job = await jobStatus(jobId);
            unreachableSince = undefined;
            if (!stopped) send(job);
          } catch (err) {
            if (stopped) return;
            const failure = describeFailure(err);
            // A team server's database restarting: the job goes on meanwhile, so the stream waits for it
            // (the beat reads again) rather than ending a follower that could not tell why.
            if (
              failure.code === 'DATABASE_UNAVAILABLE' &&
              performance.now() - (unreachableSince ??= performance.now()) < EVENTS_OUTAGE_MS
            )
              return;
            sse.send('error', failure);
            stop();
          }
        });
      };
      const unwatch = deps.jobWatch.watch(jobId, push);
      // Ingest and embed moves, cancel and delete are told at once; finalize is seen on this beat.
      const beat = setInterval(push, EVENTS_BEAT_MS);
      sse.signal.addEventListener('abort', stop, { once: true });
      send(first, firstJson);
      return reply;
    },
  );

  app.delete(
    '/jobs/:job_id',
    {
      schema: {
        tags,
        summary: 'Delete a job, its rows and its files',
        description:
          'Its files go first: an object store that refuses to remove them answers 502 OBJECT_STORE_FAILED and the job stays (failed, if it was still to be read), to be deleted again later.',
        params: JobParams,
        response: { 204: Type.Null(), ...errors(401, 404, 502) },
      },
    },
    async (req, reply) => {
      await jobs.delete(req.params.job_id);
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
