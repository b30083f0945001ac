import type { EmbeddingCatalogModel, ModelFile } from './catalog.js';

const HF = 'https://huggingface.co/';

/** bge's instruction for queries (none for passages), from its model card. */
const BGE_QUERY = 'Represent this sentence for searching relevant passages: ';

/**
 * An int8 ONNX export (`onnx/model_quantized.onnx`, as transformers.js publishes them) with its
 * tokenizer.json, both at `resolve/main`. Sizes are the rounded ones the repositories show; the graph's
 * sha256 is pinned where the publisher's page states it, else recorded by the first pull.
 */
function int8Files(repo: string, onnx: { approxBytes: number; sha256?: string }, tokenizerBytes: number): ModelFile[] {
  const base = `${HF}${repo}/resolve/main`;
  return [
    {
      path: 'onnx/model_quantized.onnx',
      url: `${base}/onnx/model_quantized.onnx`,
      size: onnx.approxBytes,
      approximate: true,
      ...(onnx.sha256 ? { sha256: onnx.sha256 } : {}),
    },
    { path: 'tokenizer.json', url: `${base}/tokenizer.json`, size: tokenizerBytes, approximate: true },
  ];
}

const INT8 = {
  task: 'embedding',
  weights: 'int8',
  onnx: 'onnx/model_quantized.onnx',
  tokenizer: 'tokenizer.json',
} as const;

/** Retrieval embedding models people pick beside MiniLM; the homepage is the model's own Hugging Face page. */
export const EMBEDDING_MODELS: readonly EmbeddingCatalogModel[] = [
  {
    ...INT8,
    languages: 'english',
    id: 'bge-small-en-v1.5-int8',
    name: 'bge-small-en-v1.5 (int8 ONNX)',
    licence: 'MIT',
    homepage: `${HF}BAAI/bge-small-en-v1.5`,
    dimensions: 384,
    pooling: 'cls',
    maxTokens: 512,
    queryPrefix: BGE_QUERY,
    files: int8Files('Xenova/bge-small-en-v1.5', { approxBytes: 34_000_000 }, 711_000),
    summary: 'Better English retrieval than MiniLM at the same size (384 dimensions).',
  },
  {
    ...INT8,
    languages: 'english',
    id: 'bge-base-en-v1.5-int8',
    name: 'bge-base-en-v1.5 (int8 ONNX)',
    licence: 'MIT',
    homepage: `${HF}BAAI/bge-base-en-v1.5`,
    dimensions: 768,
    pooling: 'cls',
    maxTokens: 512,
    queryPrefix: BGE_QUERY,
    files: int8Files('Xenova/bge-base-en-v1.5', { approxBytes: 110_000_000 }, 711_000),
    summary: 'Strong English retrieval (768 dimensions); about three times slower to embed than bge-small.',
  },
  {
    ...INT8,
    languages: 'english',
    id: 'e5-small-v2-int8',
    name: 'e5-small-v2 (int8 ONNX)',
    licence: 'MIT',
    homepage: `${HF}intfloat/e5-small-v2`,
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 512,
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    files: int8Files('Xenova/e5-small-v2', { approxBytes: 34_000_000 }, 711_000),
    summary: 'English question-to-passage search, small and quick (384 dimensions).',
  },
  {
    ...INT8,
    id: 'multilingual-e5-small-int8',
    languages: 'multilingual',
    name: 'multilingual-e5-small (int8 ONNX)',
    licence: 'MIT',
    homepage: `${HF}intfloat/multilingual-e5-small`,
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 512,
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    tokenizerModel: 'Unigram',
    files: int8Files(
      'Xenova/multilingual-e5-small',
      // The LFS pointer's sha256 on the publisher's page (the file dates from the repository's first upload).
      { approxBytes: 118_000_000, sha256: 'f80102d3f2a1229f387d3c81909990d8945513e347b0eab049f7de3c6f98c193' },
      17_100_000,
    ),
    summary: 'Search across about 100 languages (384 dimensions).',
  },
  {
    ...INT8,
    languages: 'english',
    id: 'gte-small-int8',
    name: 'gte-small (int8 ONNX)',
    licence: 'MIT',
    homepage: `${HF}thenlper/gte-small`,
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 512,
    files: int8Files('Xenova/gte-small', { approxBytes: 34_000_000 }, 711_000),
    summary: 'General English embeddings without prefixes, small and quick (384 dimensions).',
  },
  {
    ...INT8,
    languages: 'english',
    id: 'nomic-embed-text-v1.5-int8',
    name: 'nomic-embed-text-v1.5 (int8 ONNX)',
    licence: 'Apache-2.0',
    homepage: `${HF}nomic-ai/nomic-embed-text-v1.5`,
    dimensions: 768,
    pooling: 'mean',
    // Trained up to 8,192 tokens; 2,048 covers Lectern's chunks with room, and attention cost grows with length.
    maxTokens: 2048,
    queryPrefix: 'search_query: ',
    passagePrefix: 'search_document: ',
    files: int8Files(
      'nomic-ai/nomic-embed-text-v1.5',
      // The LFS pointer's sha256 on the publisher's page, the same at two of its commits.
      { approxBytes: 138_000_000, sha256: '5b395d5f27056e5fb64516a8256533bd52384b5a766c426a750b3d64375f1a41' },
      712_000,
    ),
    summary: 'Long chunks (up to 2,048 tokens here) and strong English retrieval (768 dimensions).',
  },
];
