import { describe, expect, it } from 'vitest';
import { redactKey, sessionKey } from '../../main/session-key.js';

describe('sessionKey', () => {
  it('uses SERVICE_API_KEY when it is set', () => {
    expect(sessionKey('  my-key-123  ')).toEqual({ key: 'my-key-123', generated: false });
  });

  it('generates a fresh 256-bit key for each session otherwise', () => {
    const a = sessionKey(undefined);
    const b = sessionKey('');
    expect(a.generated).toBe(true);
    expect(b.generated).toBe(true);
    expect(a.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.key).not.toBe(b.key);
  });

  it('redacts keys for logs', () => {
    const { key } = sessionKey(undefined);
    expect(redactKey(key)).toBe(`${key.slice(0, 4)}…`);
    expect(redactKey(key)).not.toContain(key.slice(4, 12));
    expect(redactKey('short')).toBe('…');
  });
});
