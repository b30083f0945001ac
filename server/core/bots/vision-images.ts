import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AppError } from '../errors.js';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-languages.js';
import type { TaskPool } from '../pool.js';
import { resolveInRoots } from './document-roots.js';

/** An image attached to a vision question, checked and read. */
export interface VisionImage {
  name: string;
  media_type: string;
  bytes: Uint8Array;
  sha256: string;
}

export const MAX_VISION_IMAGES = 8;

/** The image types the OCR path reads, by their first bytes (the name and the caller's claim do not count). */
function imageTypeOf(b: Uint8Array): string | null {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  if (at(0, 0x49, 0x49, 0x2a, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2a)) return 'image/tiff';
  return null;
}

function checked(name: string, bytes: Uint8Array, maxBytes: number): VisionImage {
  if (bytes.length === 0) throw new AppError('VALIDATION_FAILED', `image ${name} is empty`);
  if (bytes.length > maxBytes)
    throw new AppError('FILE_TOO_LARGE', `image ${name} is larger than the ${maxBytes}-byte limit`, {
      max_bytes: maxBytes,
    });
  const media = imageTypeOf(bytes);
  if (!media)
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${name} is not a PNG, JPEG, WebP or TIFF image`, {
      supported: ['png', 'jpeg', 'webp', 'tiff'],
    });
  return { name, media_type: media, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** A data URI's bytes (`data:image/png;base64,…`); bare base64 is taken too. */
function fromDataUri(uri: string, i: number): { name: string; bytes: Uint8Array } {
  const m = /^data:[^;,]*(;base64)?,(.*)$/s.exec(uri);
  const b64 = m ? m[2]! : uri;
  if (m && !m[1]) throw new AppError('VALIDATION_FAILED', `images[${i}] is a data URI without base64`);
  if (!/^[A-Za-z0-9+/=\s_-]*$/.test(b64)) throw new AppError('VALIDATION_FAILED', `images[${i}] is not base64`);
  return { name: `image-${i + 1}`, bytes: new Uint8Array(Buffer.from(b64, 'base64')) };
}

/**
 * The images of a vision question: server-side paths (inside the document roots, as documents are), data
 * URIs and uploaded files, each sniffed and size-checked; at most MAX_VISION_IMAGES.
 */
export function collectImages(
  req: { image_paths?: string[]; images?: string[]; files?: { name: string; bytes: Uint8Array }[] },
  o: { roots: readonly string[]; maxBytes: number },
): VisionImage[] {
  const count = (req.image_paths?.length ?? 0) + (req.images?.length ?? 0) + (req.files?.length ?? 0);
  if (count === 0)
    throw new AppError(
      'VALIDATION_FAILED',
      'a vision question needs at least one image (image_paths, images or files)',
      [{ field: 'images' }],
    );
  if (count > MAX_VISION_IMAGES)
    throw new AppError('VALIDATION_FAILED', `at most ${MAX_VISION_IMAGES} images per question`, {
      max: MAX_VISION_IMAGES,
    });
  const out: VisionImage[] = [];
  for (const p of req.image_paths ?? []) {
    const { real, stat } = resolveInRoots(p, o.roots);
    if (!stat.isFile()) throw new AppError('VALIDATION_FAILED', `${p} is not a file`);
    if (stat.size > o.maxBytes)
      throw new AppError('FILE_TOO_LARGE', `image ${p} is larger than the ${o.maxBytes}-byte limit`);
    out.push(checked(basename(real), new Uint8Array(readFileSync(real)), o.maxBytes));
  }
  (req.images ?? []).forEach((uri, i) => {
    const { name, bytes } = fromDataUri(uri, i);
    out.push(checked(name, bytes, o.maxBytes));
  });
  for (const f of req.files ?? []) out.push(checked(f.name, f.bytes, o.maxBytes));
  return out;
}

/**
 * Reads an image's text in the worker pool with the OCR path image documents take (layout, tables,
 * reading order), under the pool's per-document limits (pixels among them).
 */
export async function readImage(
  pool: Pick<TaskPool, 'extract'>,
  tmpDir: string,
  img: VisionImage,
  signal?: AbortSignal,
): Promise<string> {
  const path = join(tmpDir, `vision-${randomUUID()}`);
  writeFileSync(path, img.bytes);
  try {
    const out = await pool.extract(
      {
        path,
        format: 'image',
        chunk: { target_tokens: 512, overlap_tokens: 0 },
        id_seed: img.sha256,
        ocr: { lang: DEFAULT_OCR_LANG },
      },
      { signal: signal ?? new AbortController().signal, onProgress: () => undefined },
    );
    return out.blocks
      .map((b) => b.text)
      .join('\n')
      .trim();
  } finally {
    rmSync(path, { force: true });
  }
}
