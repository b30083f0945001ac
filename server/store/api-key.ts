import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
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
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
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
