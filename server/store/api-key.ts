import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ApiKey {
  key: string;
  /** Who the key stands for in audit records when no X-Reviewer header is sent. */
  name: string;
  /** Set when the key was generated and stored in the data directory. */
  file?: string;
}

/** SERVICE_API_KEY wins; otherwise a random key is generated once and kept in the data dir (0600). */
export function resolveApiKey(dataDir: string, fromEnv: string | undefined): ApiKey {
  if (fromEnv) return { key: fromEnv, name: 'service' };
  const file = join(dataDir, 'api-key');
  if (!existsSync(file)) {
    // Written whole under another name, then linked: team nodes sharing a folder may start together, and
    // the first one's key is everyone's (a reader never sees half a key).
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, file);
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
  chmodSync(file, 0o600);
  return { key: readFileSync(file, 'utf8').trim(), name: 'local', file };
}

/** Constant-time comparison; hashing first makes the lengths equal without leaking them. */
export function keyMatches(expected: string, given: string | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}
