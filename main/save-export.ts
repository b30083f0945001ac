import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';

/** The file name a Content-Disposition header suggests, reduced to a safe base name. */
export function suggestedName(disposition: string | null, fallback: string): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition ?? '')?.[1];
  const plain = /filename="?([^";]+)"?/i.exec(disposition ?? '')?.[1];
  let name = fallback;
  try {
    name = star ? decodeURIComponent(star) : (plain ?? fallback);
  } catch {
    name = plain ?? fallback;
  }
  // A server could name the file "../../.bashrc": only the last path part, without control characters.
  const safe = basename(name.replace(/\\/g, '/'))
    .replace(/[\u0000-\u001f<>:"|?*]/g, '_')
    .trim();
  return safe && safe !== '.' && safe !== '..' ? safe : fallback;
}

/** `name`, or `name (2)`, `name (3)`… so that an earlier export is never overwritten. */
export function freePath(dir: string, name: string, exists: (p: string) => boolean = existsSync): string {
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let i = 1; ; i++) {
    const candidate = join(dir, i === 1 ? name : `${stem} (${i})${ext}`);
    if (!exists(candidate)) return candidate;
  }
}

/**
 * Downloads a job's export from the app's own server into `dir` (the user's Downloads folder) and returns
 * the path, for the window to reveal in the file manager. The main process does this rather than the
 * window so that the file lands in a known place without a download prompt.
 */
export async function saveExport(opts: { url: string; key: string; jobId: string; dir: string }): Promise<string> {
  const res = await fetch(`${opts.url}/jobs/${encodeURIComponent(opts.jobId)}/export`, {
    headers: { 'x-api-key': opts.key },
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `export answered ${res.status}`);
  }
  const path = freePath(opts.dir, suggestedName(res.headers.get('content-disposition'), `lectern-${opts.jobId}.zip`));
  await writeFile(path, new Uint8Array(await res.arrayBuffer()), { flag: 'wx' });
  return path;
}
