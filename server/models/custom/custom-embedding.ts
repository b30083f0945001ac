import { copyFile, mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EmbeddingCatalogModel } from '../catalog.js';
import { sha256OfFile } from '../download.js';
import { ModelError } from '../model-error.js';
import { stagedImport } from './custom-models.js';
import type { OnnxProbeRequest, OnnxProbeResult } from './onnx-probe-protocol.js';
import { runProbe } from './probe-process.js';
import { readEmbeddingFolder, type EmbeddingFolderFacts, type EmbeddingImportOptions } from './st-folder.js';

/**
 * An embedding model imported from an ONNX export the catalog does not know, run like the catalog's: its
 * files in a folder named by its id, with the record (lectern-model.json) written last.
 */
export interface CustomEmbeddingModel extends Omit<EmbeddingCatalogModel, 'weights'> {
  /** The element type of most of the graph's weights: fp32, int8, uint8, fp16…; `unknown` when they live outside it. */
  weights: string;
  normalize: boolean;
  queryPrefix: string;
  passagePrefix: string;
  custom: { format: 'onnx'; importedAt: string; fromRequest: (keyof EmbeddingImportOptions)[] };
}

/**
 * The model's vector for a test sentence, from the probe child process (onnx-probe.ts, built as
 * dist/onnx-probe.js): proof onnxruntime loads and runs the graph with that tokenizer and pooling.
 */
async function probeOnnx(
  probeFile: string,
  req: OnnxProbeRequest,
  shownAs: string,
): Promise<Extract<OnnxProbeResult, { ok: true }>> {
  const { stdout, failure } = await runProbe(probeFile, JSON.stringify(req));
  let result: OnnxProbeResult;
  try {
    result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as OnnxProbeResult;
  } catch {
    throw new ModelError(
      'MODEL_FILE_INVALID',
      `onnxruntime stopped while loading ${shownAs} (${failure ?? 'no answer'}): the file is damaged or not an ONNX model`,
      { file: shownAs },
    );
  }
  if (!result.ok) throw new ModelError(result.code, `${shownAs}: ${result.message}`, { file: shownAs });
  return result;
}

function recordOf(
  id: string,
  facts: EmbeddingFolderFacts,
  probed: { weights: string },
  files: EmbeddingCatalogModel['files'],
): CustomEmbeddingModel {
  return {
    id,
    name: `${id} (imported ONNX)`,
    task: 'embedding',
    licence: 'unknown',
    homepage: '',
    weights: probed.weights,
    dimensions: facts.dimensions,
    pooling: facts.pooling,
    normalize: facts.normalize,
    maxTokens: facts.maxTokens,
    queryPrefix: facts.queryPrefix,
    passagePrefix: facts.passagePrefix,
    onnx: facts.onnx,
    tokenizer: facts.tokenizer,
    files,
    custom: { format: 'onnx', importedAt: new Date().toISOString(), fromRequest: facts.fromRequest },
  };
}

/**
 * Reads the folder's facts, copies its files into a hidden folder under `modelsDir`, loads the copy once
 * in the probe process (a vector of the stated dimensions, every value finite), then renames the folder to
 * the model's id. Whatever is refused leaves nothing: the hidden folder goes with the error.
 */
export function importCustomOnnx(opts: {
  modelsDir: string;
  probeFile: string;
  id: string;
  source: string;
  given: EmbeddingImportOptions;
}): Promise<CustomEmbeddingModel> {
  return stagedImport(opts.modelsDir, opts.id, async (staging) => {
    const facts = await readEmbeddingFolder(opts.source, opts.id, opts.given);
    const files: EmbeddingCatalogModel['files'] = [];
    for (const rel of facts.files) {
      const copy = join(staging, rel);
      await mkdir(dirname(copy), { recursive: true });
      await copyFile(join(opts.source, rel), copy);
      files.push({ path: rel, url: '', size: (await stat(copy)).size, sha256: await sha256OfFile(copy) });
    }
    const req = {
      onnxPath: join(staging, facts.onnx),
      tokenizerPath: join(staging, facts.tokenizer),
      pooling: facts.pooling,
      normalize: facts.normalize,
      maxTokens: facts.maxTokens,
    };
    const probed = await probeOnnx(opts.probeFile, req, facts.onnx);
    if (probed.dimensions !== facts.dimensions) {
      const said = facts.fromRequest.includes('dimensions') ? 'the request states' : 'its files state';
      throw new ModelError(
        'MODEL_FILE_INVALID',
        `${facts.onnx} gives ${probed.dimensions}-dimensional vectors; ${said} ${facts.dimensions}`,
        { id: opts.id, file: facts.onnx, dimensions: probed.dimensions },
      );
    }
    if (!probed.finite)
      throw new ModelError(
        'MODEL_FILE_INVALID',
        `${facts.onnx} gives a vector that is not all finite numbers for a plain sentence`,
        { id: opts.id, file: facts.onnx },
      );
    return recordOf(opts.id, facts, probed, files);
  });
}
