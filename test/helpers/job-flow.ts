import { strFromU8, unzipSync } from 'fflate';
import { expect } from 'vitest';
import { json, type ServerClient } from './app.js';

/** Finalizes a job under `policy` and returns the files of its export zip by name; both requests must answer 200. */
export async function finalizedExport(
  server: Pick<ServerClient, 'call'>,
  jobId: string,
  policy: 'auto_approve_pending' | 'auto_reject_pending' = 'auto_approve_pending',
): Promise<Record<string, Uint8Array>> {
  const fin = await server.call('POST', `/jobs/${jobId}/finalize`, { json: { finalize_policy: policy } });
  expect(fin.status).toBe(200);
  const res = await server.call('GET', `/jobs/${jobId}/export`);
  expect(res.status).toBe(200);
  return unzipSync(new Uint8Array(await res.arrayBuffer()));
}

/** The text of the export's document.md, wherever in the zip it lies. */
export function exportedMarkdown(files: Record<string, Uint8Array>): string {
  return strFromU8(Object.entries(files).find(([name]) => name.endsWith('document.md'))![1]);
}

/**
 * Uploads a file the server accepts (201), as `format` when one is named, and waits until its job fails with `code`:
 * how a file that goes wrong while it is read shows. Returns the failed job, for what the test checks further.
 */
export async function failedUpload(
  server: ServerClient,
  name: string,
  data: Uint8Array,
  code: string,
  format?: string,
) {
  const res = await server.upload(name, data);
  expect(res.status).toBe(201);
  const body = await json(res);
  if (format) expect(body.format).toBe(format);
  const job = await server.waitFor(body.job_id);
  expect(job.status).toBe('failed');
  expect(job.error.code).toBe(code);
  return job;
}
