import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createChatCipher, loadChatKey } from '../../server/core/chat/chat-cipher.js';
import { tempDir } from '../helpers/app.js';

describe('the chat cipher', () => {
  it('seals with a fresh nonce each time, opens what it sealed, and leaves plain values readable', () => {
    const keyFile = join(tempDir(), 'chat.key');
    const cipher = createChatCipher(loadChatKey({ encrypt: true, keyFile }), true);
    const a = cipher.seal('What is the warranty period?');
    const b = cipher.seal('What is the warranty period?');
    expect(a).toMatch(/^enc:v1:/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('warranty');
    expect(cipher.open(a)).toBe('What is the warranty period?');
    expect(cipher.open('stored before encryption was on')).toBe('stored before encryption was on');
    expect(cipher.open(cipher.seal(''))).toBe('');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('makes no key when nothing is sealed, reads sealed values after sealing is off, and refuses another key or a tampered value', () => {
    const dir = tempDir();
    const keyFile = join(dir, 'chat.key');
    expect(loadChatKey({ encrypt: false, keyFile })).toBeNull();
    const sealed = createChatCipher(loadChatKey({ encrypt: true, keyFile }), true).seal('secret answer');
    // Turned off: new texts stay plain, old sealed ones still open with the key on disk.
    const off = createChatCipher(loadChatKey({ encrypt: false, keyFile }), false);
    expect(off.seal('plain now')).toBe('plain now');
    expect(off.open(sealed)).toBe('secret answer');
    // No key at all, or another one: 409 CHAT_KEY_MISSING, never the wrong text.
    expect(() => createChatCipher(null, false).open(sealed)).toThrow(
      expect.objectContaining({ code: 'CHAT_KEY_MISSING' }),
    );
    const other = createChatCipher(loadChatKey({ encrypt: true, keyFile: join(dir, 'other.key') }), true);
    expect(() => other.open(sealed)).toThrow(expect.objectContaining({ code: 'CHAT_KEY_MISSING' }));
    const flipped = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect(() => off.open(flipped)).toThrow(expect.objectContaining({ code: 'CHAT_KEY_MISSING' }));
  });

  it('takes LECTERN_CHAT_KEY in base64 or hex before the file, and refuses a key of the wrong length', () => {
    const keyFile = join(tempDir(), 'chat.key');
    const hex = 'ab'.repeat(32);
    const fromHex = createChatCipher(loadChatKey({ encrypt: true, keyFile, envKey: hex }), true);
    const fromB64 = createChatCipher(
      loadChatKey({ encrypt: true, keyFile, envKey: Buffer.from(hex, 'hex').toString('base64') }),
      true,
    );
    expect(fromB64.open(fromHex.seal('same key'))).toBe('same key');
    expect(() => readFileSync(keyFile)).toThrow(); // the environment's key needs no file
    expect(() => loadChatKey({ encrypt: true, keyFile, envKey: 'c2hvcnQ=' })).toThrow(/32-byte key/);
  });
});
