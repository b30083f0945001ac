import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { SettingsError } from '../../schemas/settings.js';
import { AppError } from '../errors.js';

/** A sealed value starts with this; anything else was stored plain (before encryption was turned on). */
const SEALED = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Binds a sealed value to its purpose: a sealed chat text cannot be passed off as anything else Lectern seals. */
const AAD = Buffer.from('lectern chat text v1');

export interface ChatCipher {
  /** Whether new chat texts are sealed (setting encrypt_chats). */
  readonly sealing: boolean;
  /** The text as it is to be stored: sealed with AES-256-GCM when sealing, as given otherwise. */
  seal(text: string): string;
  /** The text of a stored value, sealed or plain; a sealed one without the key is 409 CHAT_KEY_MISSING. */
  open(stored: string): string;
}

/** Where the key comes from: LECTERN_CHAT_KEY (32 bytes, base64 or hex) or the key file (made when first needed). */
export interface ChatKeySource {
  encrypt: boolean;
  keyFile: string;
  envKey?: string;
}

function decodeKey(text: string, where: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32)
    throw new SettingsError(`${where} must hold a 32-byte key, base64 or hex (it holds ${key.length} bytes)`);
  return key;
}

/**
 * The chat key: from the environment, else the key file; a missing file is made (random, mode 0600) only
 * when chats are to be sealed, so a data folder that never sealed anything gets no key it does not need.
 */
export function loadChatKey({ encrypt, keyFile, envKey }: ChatKeySource): Buffer | null {
  if (envKey?.trim()) return decodeKey(envKey, 'LECTERN_CHAT_KEY');
  if (existsSync(keyFile)) return decodeKey(readFileSync(keyFile, 'utf8'), keyFile);
  if (!encrypt) return null;
  const key = randomBytes(32);
  // `wx`: two processes starting at once cannot both write a key; the loser reads the winner's.
  try {
    writeFileSync(keyFile, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as { code?: string }).code === 'EEXIST') return decodeKey(readFileSync(keyFile, 'utf8'), keyFile);
    throw e;
  }
  chmodSync(keyFile, 0o600);
  return key;
}

/**
 * Seals the words of chats (questions, answers, drafts, notes) before they reach SQLite. Values stored
 * plain stay readable, so encryption can be turned on for a folder that has chats; sealed ones stay
 * readable after it is turned off, as long as the key is there.
 */
export function createChatCipher(key: Buffer | null, sealing: boolean): ChatCipher {
  if (sealing && !key) throw new SettingsError('encrypt_chats is on but no chat key was found or made');
  return {
    sealing,
    seal(text) {
      if (!sealing || !key) return text;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(AAD);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return SEALED + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(stored) {
      if (!stored.startsWith(SEALED)) return stored;
      if (!key)
        throw new AppError(
          'CHAT_KEY_MISSING',
          'this chat was stored encrypted, and the chat key (LECTERN_CHAT_KEY or the chat_key_file) is not here',
        );
      const raw = Buffer.from(stored.slice(SEALED.length), 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES)).setAAD(AAD);
        decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new AppError(
          'CHAT_KEY_MISSING',
          'this chat was stored encrypted with another key than the chat key here',
        );
      }
    },
  };
}

type TextKeys<T> = { [K in keyof T]: T[K] extends string | null | undefined ? K : never }[keyof T];

/** A copy of the row with the named text fields sealed (null and absent ones left alone). */
export function sealFields<T extends object>(cipher: ChatCipher, row: T, fields: readonly TextKeys<T>[]): T {
  const out = { ...row };
  for (const f of fields) if (typeof out[f] === 'string') (out[f] as string) = cipher.seal(out[f] as string);
  return out;
}

/** A copy of the row with the named text fields opened. */
export function openFields<T extends object>(cipher: ChatCipher, row: T, fields: readonly TextKeys<T>[]): T {
  const out = { ...row };
  for (const f of fields) if (typeof out[f] === 'string') (out[f] as string) = cipher.open(out[f] as string);
  return out;
}
