import { DEFAULT_EMBEDDING_MODEL, MODEL_CATALOG, type CatalogModel } from '../../models/catalog.js';
import type { ModelManager } from '../../models/manager.js';
import { AppError } from '../errors.js';

/**
 * LongParser's embedding providers that run a Hugging Face model on the machine itself. Lectern runs
 * the same models locally with onnxruntime, so these names mean `local` with the catalog's ONNX export.
 */
export const HUB_PROVIDERS = ['huggingface', 'sentence-transformers'] as const;
export type HubProvider = (typeof HUB_PROVIDERS)[number];

export const isHubProvider = (p: string): p is HubProvider => (HUB_PROVIDERS as readonly string[]).includes(p);

/** The vector stores Lectern offers; LongParser's chroma, faiss and qdrant are not among them. */
const VECTOR_DBS = ['usearch'] as const;

export function checkVectorDb(name: string | undefined): void {
  if (name === undefined || (VECTOR_DBS as readonly string[]).includes(name)) return;
  throw new AppError(
    'VALIDATION_FAILED',
    `vector_db ${name} is not offered here; Lectern stores vectors in ${VECTOR_DBS.join(', ')} (HNSW, cosine, in the data folder): send vector_db "usearch" or leave it out`,
    [{ field: 'vector_db', message: `one of: ${VECTOR_DBS.join(', ')}`, allowed: VECTOR_DBS }],
  );
}

const HUB = 'https://huggingface.co/';

/** The Hugging Face name a catalog model was exported from ("sentence-transformers/all-MiniLM-L6-v2"). */
const hubNameOf = (m: CatalogModel): string | undefined =>
  m.homepage.startsWith(HUB) ? m.homepage.slice(HUB.length) : undefined;

/**
 * The catalog models a Hugging Face name stands for: by full name ("sentence-transformers/all-MiniLM-L6-v2"),
 * bare name ("all-MiniLM-L6-v2", case-insensitive) or a catalog id (exactly). Several ONNX exports of one model share
 * its name; the default embedding model comes first, then the catalog's order.
 */
function catalogModelsFor(name: string, catalog: readonly CatalogModel[] = MODEL_CATALOG): CatalogModel[] {
  const embedding = catalog.filter((m) => m.task === 'embedding');
  // A catalog id only as written: the bare hub name "all-MiniLM-L6-v2" lower-cased is also an id (fp32).
  const byId = embedding.filter((m) => m.id === name.trim());
  if (byId.length) return byId;
  const wanted = name.trim().toLowerCase();
  const matches = embedding.filter((m) => {
    const hub = hubNameOf(m)?.toLowerCase();
    return hub !== undefined && (hub === wanted || hub.split('/').pop() === wanted);
  });
  return matches.sort((a, b) => Number(b.id === DEFAULT_EMBEDDING_MODEL) - Number(a.id === DEFAULT_EMBEDDING_MODEL));
}

/**
 * The catalog id to embed with for a LongParser body naming a Hugging Face model: an installed export of
 * it (the default one first); 409 MODEL_NOT_INSTALLED saying how to get one when none is installed; 404
 * MODEL_NOT_FOUND naming the models this machine can run when the catalog has no export of it.
 */
export async function localModelForHubName(
  name: string | undefined,
  models: ModelManager,
  defaultModel: string,
): Promise<string> {
  if (!name) return defaultModel;
  const candidates = catalogModelsFor(name);
  if (candidates.length === 0) {
    const known = MODEL_CATALOG.filter((m) => m.task === 'embedding').map((m) => `${hubNameOf(m) ?? m.id} (${m.id})`);
    throw new AppError(
      'MODEL_NOT_FOUND',
      `no local ONNX export of ${name} is known; embedding models this machine can run: ${[...new Set(known)].join(', ')}`,
      {
        id: name,
        known: MODEL_CATALOG.filter((m) => m.task === 'embedding').map((m) => m.id),
      },
    );
  }
  const listed = await models.list();
  const status = new Map(listed.map((s) => [s.id, s.installed]));
  const installed = candidates.find((m) => status.get(m.id));
  if (installed) return installed.id;
  // An export this server cannot run yet (its tokenizer) is named as such, not offered for download.
  const notRunnable = new Map(listed.map((s) => [s.id, s.notRunnable]));
  const runnable = candidates.filter((m) => !notRunnable.get(m.id));
  if (runnable.length === 0) {
    const id = candidates[0]!.id;
    throw new AppError('MODEL_NOT_RUNNABLE', `${name}: ${notRunnable.get(id)}`, { id, hub_name: name });
  }
  const first = runnable[0]!;
  throw new AppError(
    'MODEL_NOT_INSTALLED',
    `${name} runs here as the ONNX model ${first.id}, which is not installed. Get it in the desk under Models, with POST /models/${first.id}/pull, ` +
      `\`lectern models pull ${first.id}\`, or copy its files over and run \`lectern models import ${first.id} <path>\`` +
      (candidates.length > 1
        ? ` (other exports of it: ${candidates
            .slice(1)
            .map((m) => m.id)
            .join(', ')})`
        : ''),
    { id: first.id, hub_name: name, candidates: candidates.map((m) => m.id) },
  );
}
