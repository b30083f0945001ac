import { EMBEDDING_MODELS } from '../../server/models/embedding-catalog.js';
import { type CatalogModel, MODEL_CATALOG } from '../../server/models/catalog.js';

/**
 * A catalog entry whose tokenizer Lectern does not run (a WordLevel tokenizer.json): every published
 * embedding model of the built-in catalog runs here, so the listing and refusal of one that cannot are shown
 * with this entry, added to a test server's catalog.
 */
export const UNRUNNABLE_ID = 'wordlevel-embedder-int8';
const base = EMBEDDING_MODELS.find((m) => m.id === 'bge-small-en-v1.5-int8')!;
export const UNRUNNABLE_MODEL: CatalogModel = {
  ...base,
  id: UNRUNNABLE_ID,
  name: 'An embedding model with a WordLevel tokenizer',
  tokenizerModel: 'WordLevel',
};

/** The built-in catalog and that entry: a test server's `catalog`. */
export const CATALOG_WITH_UNRUNNABLE: readonly CatalogModel[] = [...MODEL_CATALOG, UNRUNNABLE_MODEL];
