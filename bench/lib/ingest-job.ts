/** Uploads one file to a running server and follows its job to the end, timing it and its pages. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerHandle } from './server.js';
import { sseEvents } from '../../test/helpers/sse.js';

export interface JobView {
  job_id: string;
  status: string;
  total_pages?: number | null;
  total_blocks?: number | null;
  total_chunks?: number | null;
  progress?: { pages_done?: number | null; total_pages?: number | null } | null;
  error?: { code?: string; message?: string } | null;
}

export interface IngestResult {
  file: string;
  status: string;
  /** Upload start to the final status, ms. */
  wallMs: number;
  /** Upload request alone (until POST /jobs answered), ms. */
  uploadMs: number;
  job: JobView;
  /** Longest wait between two progress updates, per page advanced, and the page it ended on. */
  slowest: { msPerPage: number; page: number } | null;
  /** Split of wallMs as the client saw it: until first seen processing, until all pages seen done, then to the end. */
  phases: { queuedMs: number; pagesMs: number; afterPagesMs: number } | null;
  error?: string;
}

const TERMINAL = new Set(['ready_for_review', 'failed', 'cancelled', 'finalized', 'indexed']);

async function getJob(server: ServerHandle, jobId: string): Promise<JobView> {
  const res = await fetch(`${server.baseUrl}/jobs/${encodeURIComponent(jobId)}`, {
    headers: { 'X-API-Key': server.apiKey },
  });
  const body = (await res.json()) as JobView;
  if (res.status !== 200) throw new Error(`GET /jobs/${jobId} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Job views as GET /jobs/{id} answers them, every `pollMs`, until one is terminal. */
async function* polled(server: ServerHandle, jobId: string, pollMs: number): AsyncGenerator<JobView> {
  for (;;) {
    await sleep(pollMs);
    const job = await getJob(server, jobId);
    yield job;
    if (TERMINAL.has(job.status)) return;
  }
}

/** Job views as GET /jobs/{id}/events sends them, until the server ends the stream. */
async function* followed(server: ServerHandle, jobId: string, signal: AbortSignal): AsyncGenerator<JobView> {
  const res = await fetch(`${server.baseUrl}/jobs/${encodeURIComponent(jobId)}/events`, {
    headers: { 'X-API-Key': server.apiKey },
    signal,
  });
  if (res.status !== 200 || !res.body)
    throw new Error(`GET /jobs/${jobId}/events answered ${res.status}: ${await res.text()}`);
  for await (const { event, data } of sseEvents(res.body)) {
    if (event === 'error') throw new Error(`job event stream: ${JSON.stringify(data)}`);
    if (event === 'job') yield data as JobView;
  }
}

export interface FollowOptions {
  /** `events`: GET /jobs/{id}/events (default); `poll`: GET /jobs/{id} every `pollMs`. */
  follow?: 'events' | 'poll';
  pollMs?: number;
  timeoutMs?: number;
}

/** Ingests `file` and follows its job to the end (events or polling) or until `timeoutMs` passes. */
export async function ingestFile(server: ServerHandle, file: string, opts: FollowOptions = {}): Promise<IngestResult> {
  const pollMs = opts.pollMs ?? 50;
  const timeoutMs = opts.timeoutMs ?? 30 * 60_000;
  const data = readFileSync(file);
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/pdf' }), path.basename(file));
  const started = performance.now();
  const res = await fetch(`${server.baseUrl}/jobs`, {
    method: 'POST',
    headers: { 'X-API-Key': server.apiKey },
    body: form,
  });
  const uploadMs = performance.now() - started;
  const created = (await res.json()) as JobView;
  if (res.status !== 201 || !created.job_id) {
    const error = `POST /jobs answered ${res.status}: ${JSON.stringify(created).slice(0, 500)}`;
    return {
      file,
      status: 'upload_failed',
      wallMs: uploadMs,
      uploadMs,
      job: created,
      slowest: null,
      phases: null,
      error,
    };
  }
  let job = created;
  let lastDone = 0;
  let lastAt = 0;
  let slowest: IngestResult['slowest'] = null;
  let processingAt: number | null = null;
  let pagesDoneAt: number | null = null;
  const timeout = AbortSignal.timeout(timeoutMs);
  const views =
    opts.follow === 'poll' ? polled(server, created.job_id, pollMs) : followed(server, created.job_id, timeout);
  try {
    for await (job of views) {
      if (timeout.aborted) break;
      const now = performance.now();
      const done = job.progress?.pages_done ?? 0;
      const total = job.progress?.total_pages ?? job.total_pages ?? 0;
      if (processingAt === null && job.status !== 'queued') processingAt = now;
      if (pagesDoneAt === null && total > 0 && done >= total) pagesDoneAt = now;
      if (done > lastDone) {
        // The first update also holds upload, queueing and document opening: page timing starts from it.
        if (lastDone > 0) {
          const msPerPage = (now - lastAt) / (done - lastDone);
          if (!slowest || msPerPage > slowest.msPerPage) slowest = { msPerPage, page: done };
        }
        lastDone = done;
        lastAt = now;
      }
    }
  } catch (err) {
    if (!timeout.aborted) throw err;
  }
  if (!TERMINAL.has(job.status)) {
    const error = `no final status after ${timeoutMs} ms`;
    return {
      file,
      status: 'timeout',
      wallMs: performance.now() - started,
      uploadMs,
      job,
      slowest,
      phases: null,
      error,
    };
  }
  const end = performance.now();
  const wallMs = end - started;
  const queuedEnd = processingAt ?? end;
  const pagesEnd = pagesDoneAt ?? end;
  const phases = { queuedMs: queuedEnd - started, pagesMs: pagesEnd - queuedEnd, afterPagesMs: end - pagesEnd };
  const error =
    job.status === 'ready_for_review' ? undefined : `${job.error?.code ?? job.status}: ${job.error?.message ?? ''}`;
  return { file, status: job.status, wallMs, uploadMs, job, slowest, phases, ...(error ? { error } : {}) };
}
