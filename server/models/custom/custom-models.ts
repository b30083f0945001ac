import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ChatCatalogModel } from '../catalog.js';
import { sha256OfFile } from '../download.js';
import type { GgufFacts } from '../llm/gguf-probe-protocol.js';
import { ModelError } from '../model-error.js';
import type { CustomEmbeddingModel } from './custom-embedding.js';
import { hasGgufMagic, probeGguf } from './gguf-probe-run.js';

/**
 * Chat models imported from a GGUF the catalog does not know. Each lives like a catalog model, in a folder
 * named by its id under the models folder, with a record beside its file: the record is what makes the
 * folder a model (a folder without one is ignored), and it is written last, so a half-done import is never
 * listed.
 */
export interface CustomChatModel extends Omit<ChatCatalogModel, 'weights' | 'kvBytesPerToken'> {
  /** The file type read from the GGUF (q4_k_m, q8_0…), `unknown` when it states none. */
  weights: string;
  custom: Omit<GgufFacts, 'chatTemplate' | 'sizeBytes' | 'licence'> & { chatTemplate: string; importedAt: string };
}

/** A model imported from files of your own: a GGUF chat model or an ONNX embedding model. */
export type CustomModel = CustomChatModel | CustomEmbeddingModel;

export const CUSTOM_RECORD = 'lectern-model.json';

/** The context a custom model is opened with: what it was trained with, at most what Lectern's prompts need. */
const MAX_CONTEXT = 4096;

/** An id is a folder name and a CLI argument: lowercase, no separators, no leading dot. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function checkCustomName(name: string, catalogIds: readonly string[]): void {
  if (!NAME.test(name)) {
    throw new ModelError(
      'MODEL_NAME_INVALID',
      `"${name}" cannot name a model: use 1 to 64 lowercase letters, digits, "-", "." or "_", starting with a letter or digit`,
      { id: name },
    );
  }
  if (catalogIds.includes(name))
    throw new ModelError('MODEL_EXISTS', `${name} is a model of the catalog; import your model under another name`, {
      id: name,
    });
}

/** Every custom model recorded under `modelsDir` (a record that cannot be read is skipped, not fatal). */
export async function readCustomModels(modelsDir: string): Promise<CustomModel[]> {
  const entries = await readdir(modelsDir, { withFileTypes: true }).catch(() => []);
  const found: CustomModel[] = [];
  for (const e of entries) {
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const text = await readFile(join(modelsDir, e.name, CUSTOM_RECORD), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    try {
      const m = JSON.parse(text) as CustomModel;
      if (m.id === e.name && (m.task === 'chat' || m.task === 'embedding') && m.custom) found.push(m);
    } catch {
      // A record damaged by hand: the model is not listed until it is imported again.
    }
  }
  return found.sort((a, b) => a.id.localeCompare(b.id));
}

function recordOf(id: string, file: string, sha256: string, facts: GgufFacts): CustomChatModel {
  const { chatTemplate, sizeBytes, licence: _licence, ...rest } = facts;
  return {
    id,
    name: facts.name ? `${facts.name} (imported GGUF)` : `${id} (imported GGUF)`,
    task: 'chat',
    licence: facts.licence ?? 'unknown',
    homepage: '',
    weights: facts.quantization ?? 'unknown',
    gguf: file,
    contextTokens: Math.min(facts.contextLength ?? MAX_CONTEXT, MAX_CONTEXT),
    files: [{ path: file, url: '', size: sizeBytes, sha256 }],
    custom: { ...rest, chatTemplate: chatTemplate ?? '', importedAt: new Date().toISOString() },
  };
}

/**
 * Copies `source` into a hidden folder under `modelsDir`, checks the copy (magic bytes, metadata, a chat
 * template, a real load in the probe process), then renames the folder to the model's id. Whatever is
 * refused leaves nothing: the hidden folder goes with the error.
 */
export function importCustomGguf(opts: {
  modelsDir: string;
  probeFile: string;
  id: string;
  source: string;
  fileName?: string;
}): Promise<CustomChatModel> {
  return stagedImport(opts.modelsDir, opts.id, async (staging) => {
    // Told before a byte is copied: a large file of something else is not written into the models folder at all.
    if (!(await hasGgufMagic(opts.source)))
      throw new ModelError(
        'MODEL_FILE_INVALID',
        `${shownAs(opts)} is not a GGUF file (it does not start with the bytes "GGUF")`,
        { id: opts.id },
      );
    const file = safeFileName(opts.fileName ?? basename(opts.source));
    await mkdir(staging, { recursive: true });
    const copy = join(staging, file);
    await copyFile(opts.source, copy);
    const facts = await probeGguf(opts.probeFile, copy, shownAs(opts));
    return recordOf(opts.id, file, await sha256OfFile(copy), facts);
  });
}

/**
 * An import into `modelsDir/id`: refused at once when that name is taken; `fill` writes the model's files
 * into a hidden folder and gives its record, which is written beside them before the folder is renamed to
 * the id. Whatever is refused leaves nothing: the hidden folder goes with the error.
 */
export async function stagedImport<R>(
  modelsDir: string,
  id: string,
  fill: (staging: string) => Promise<R>,
): Promise<R> {
  const dest = join(modelsDir, id);
  const taken = () =>
    new ModelError('MODEL_EXISTS', `a model named ${id} is already installed; remove ${dest} or choose another name`, {
      id,
    });
  if (
    await stat(dest).then(
      () => true,
      () => false,
    )
  )
    throw taken();
  const staging = join(modelsDir, `.import-${id}-${randomUUID()}`);
  try {
    const record = await fill(staging);
    await writeFile(join(staging, CUSTOM_RECORD), `${JSON.stringify(record, null, 2)}\n`);
    // Refused when a folder of that name appeared meanwhile (another import): the first one keeps it.
    await rename(staging, dest).catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOTEMPTY' || err.code === 'EEXIST' ? taken() : err;
    });
    return record;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** An upload is named by the name it was sent with, not by its temporary file. */
const shownAs = (o: { source: string; fileName?: string }): string => o.fileName ?? o.source;

/** The file keeps its name (people recognise it) when it is a plain one ending in .gguf. */
function safeFileName(name: string): string {
  return /^[\w.-]{1,200}\.gguf$/i.test(name) && !name.startsWith('.') ? name : 'model.gguf';
}
