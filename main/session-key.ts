import { randomBytes } from 'node:crypto';

/**
 * The API key of one desktop session: SERVICE_API_KEY when the user set one (so scripts can talk to the
 * app's server), otherwise 32 random bytes made at each start and never written anywhere. Only the window
 * (through the preload) and this process know it, so other local programs cannot drive the app's server.
 */
export function sessionKey(serviceApiKey: string | undefined): { key: string; generated: boolean } {
  const given = serviceApiKey?.trim();
  if (given) return { key: given, generated: false };
  return { key: randomBytes(32).toString('base64url'), generated: true };
}

/** What a log line may show of a key: enough to tell two apart, never enough to use. */
export function redactKey(key: string): string {
  return key.length <= 8 ? '…' : `${key.slice(0, 4)}…`;
}
