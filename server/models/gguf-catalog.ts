import type { ChatCatalogModel } from './catalog.js';

/** llama.cpp's f16 key/value cache for one token: keys and values, every layer, every KV head. */
export const kvBytes = (layers: number, kvHeads: number, headSize: number): number =>
  2 * layers * kvHeads * headSize * 2;

interface GgufEntry {
  id: string;
  name: string;
  /** The Hugging Face repository publishing the GGUF, and the file's name in it. */
  repo: string;
  file: string;
  licence: string;
  /** The model's own page (its Hugging Face name is what LongParser clients send). */
  homepage: string;
  /** The size the publisher's page shows, rounded as shown there. */
  approxBytes: number;
  kvBytesPerToken: number;
  summary: string;
}

/**
 * A Q4_K_M GGUF at its publisher's `resolve/main` address. No checksum is pinned: these repositories have
 * re-uploaded files under the same name (bartowski's Qwen2.5-7B-Instruct-Q4_K_M.gguf has had at least four
 * sha256s), so a pinned one would refuse the file the address serves today. The first pull checks the
 * announced size against the published one and records the sha256 it got.
 */
function q4km(e: GgufEntry): ChatCatalogModel {
  return {
    id: e.id,
    name: e.name,
    task: 'chat',
    licence: e.licence,
    homepage: e.homepage,
    weights: 'q4_k_m',
    gguf: e.file,
    // Every model here was trained with 4,096 tokens or more; Lectern's grounded prompts stay under ~1,500.
    contextTokens: 4096,
    kvBytesPerToken: e.kvBytesPerToken,
    summary: e.summary,
    files: [
      {
        path: e.file,
        url: `https://huggingface.co/${e.repo}/resolve/main/${e.file}`,
        size: e.approxBytes,
        approximate: true,
      },
    ],
  };
}

const HF = 'https://huggingface.co/';

/** Instruct models from 0.36B to 8B parameters, smallest first; sizes as their publishers show them. */
export const GGUF_CHAT_MODELS: readonly ChatCatalogModel[] = [
  q4km({
    id: 'smollm2-360m-instruct-q4_k_m',
    name: 'SmolLM2-360M-Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/SmolLM2-360M-Instruct-GGUF',
    file: 'SmolLM2-360M-Instruct-Q4_K_M.gguf',
    licence: 'Apache-2.0',
    homepage: `${HF}HuggingFaceTB/SmolLM2-360M-Instruct`,
    approxBytes: 271_000_000,
    kvBytesPerToken: kvBytes(32, 5, 64),
    summary: 'Tiny and quick on any CPU: short answers from the sources, little reasoning.',
  }),
  q4km({
    id: 'qwen2.5-0.5b-instruct-q4_k_m',
    name: 'Qwen2.5-0.5B-Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/Qwen2.5-0.5B-Instruct-GGUF',
    file: 'Qwen2.5-0.5B-Instruct-Q4_K_M.gguf',
    licence: 'Apache-2.0',
    homepage: `${HF}Qwen/Qwen2.5-0.5B-Instruct`,
    approxBytes: 398_000_000,
    kvBytesPerToken: kvBytes(24, 2, 64),
    summary: 'The smallest that follows instructions well; multilingual, good at JSON answers.',
  }),
  q4km({
    id: 'llama-3.2-1b-instruct-q4_k_m',
    name: 'Llama 3.2 1B Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/Llama-3.2-1B-Instruct-GGUF',
    file: 'Llama-3.2-1B-Instruct-Q4_K_M.gguf',
    licence: 'Llama 3.2 Community License',
    homepage: `${HF}meta-llama/Llama-3.2-1B-Instruct`,
    approxBytes: 808_000_000,
    kvBytesPerToken: kvBytes(16, 8, 64),
    summary: 'Fast everyday answers and summaries on a laptop CPU.',
  }),
  q4km({
    id: 'qwen2.5-1.5b-instruct-q4_k_m',
    name: 'Qwen2.5-1.5B-Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/Qwen2.5-1.5B-Instruct-GGUF',
    file: 'Qwen2.5-1.5B-Instruct-Q4_K_M.gguf',
    licence: 'Apache-2.0',
    homepage: `${HF}Qwen/Qwen2.5-1.5B-Instruct`,
    approxBytes: 986_000_000,
    kvBytesPerToken: kvBytes(28, 2, 128),
    summary: 'A good balance on small machines: solid grounded answers in many languages.',
  }),
  q4km({
    id: 'smollm2-1.7b-instruct-q4_k_m',
    name: 'SmolLM2-1.7B-Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/SmolLM2-1.7B-Instruct-GGUF',
    file: 'SmolLM2-1.7B-Instruct-Q4_K_M.gguf',
    licence: 'Apache-2.0',
    homepage: `${HF}HuggingFaceTB/SmolLM2-1.7B-Instruct`,
    approxBytes: 1_060_000_000,
    kvBytesPerToken: kvBytes(24, 32, 64),
    summary: 'English answers and rewriting; fully open data, small enough for 8 GB machines.',
  }),
  q4km({
    id: 'gemma-2-2b-it-q4_k_m',
    name: 'Gemma 2 2B Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/gemma-2-2b-it-GGUF',
    file: 'gemma-2-2b-it-Q4_K_M.gguf',
    licence: 'Gemma Terms of Use',
    homepage: `${HF}google/gemma-2-2b-it`,
    approxBytes: 1_710_000_000,
    kvBytesPerToken: kvBytes(26, 4, 256),
    summary: 'Fluent, well-written answers for its size; English first.',
  }),
  q4km({
    id: 'qwen2.5-3b-instruct-q4_k_m',
    name: 'Qwen2.5-3B-Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/Qwen2.5-3B-Instruct-GGUF',
    file: 'Qwen2.5-3B-Instruct-Q4_K_M.gguf',
    licence: 'Qwen Research License',
    homepage: `${HF}Qwen/Qwen2.5-3B-Instruct`,
    approxBytes: 1_930_000_000,
    kvBytesPerToken: kvBytes(36, 2, 128),
    summary: 'Strong reasoning and structured answers for 3B; research and non-commercial use.',
  }),
  q4km({
    id: 'llama-3.2-3b-instruct-q4_k_m',
    name: 'Llama 3.2 3B Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/Llama-3.2-3B-Instruct-GGUF',
    file: 'Llama-3.2-3B-Instruct-Q4_K_M.gguf',
    licence: 'Llama 3.2 Community License',
    homepage: `${HF}meta-llama/Llama-3.2-3B-Instruct`,
    approxBytes: 2_020_000_000,
    kvBytesPerToken: kvBytes(28, 8, 128),
    summary: 'Dependable answers and summaries with citations; a good default on 8-16 GB.',
  }),
  q4km({
    id: 'phi-3.5-mini-instruct-q4_k_m',
    name: 'Phi-3.5-mini-instruct 3.8B (Q4_K_M GGUF)',
    repo: 'bartowski/Phi-3.5-mini-instruct-GGUF',
    file: 'Phi-3.5-mini-instruct-Q4_K_M.gguf',
    licence: 'MIT',
    homepage: `${HF}microsoft/Phi-3.5-mini-instruct`,
    approxBytes: 2_390_000_000,
    kvBytesPerToken: kvBytes(32, 32, 96),
    summary: 'Reasoning and careful reading of long sources; English first.',
  }),
  q4km({
    id: 'mistral-7b-instruct-v0.3-q4_k_m',
    name: 'Mistral 7B Instruct v0.3 (Q4_K_M GGUF)',
    repo: 'bartowski/Mistral-7B-Instruct-v0.3-GGUF',
    file: 'Mistral-7B-Instruct-v0.3-Q4_K_M.gguf',
    licence: 'Apache-2.0',
    homepage: `${HF}mistralai/Mistral-7B-Instruct-v0.3`,
    approxBytes: 4_370_000_000,
    kvBytesPerToken: kvBytes(32, 8, 128),
    summary: 'A well-tried 7B for European languages; slow on 2 cores.',
  }),
  q4km({
    id: 'qwen2.5-7b-instruct-q4_k_m',
    name: 'Qwen2.5-7B-Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/Qwen2.5-7B-Instruct-GGUF',
    file: 'Qwen2.5-7B-Instruct-Q4_K_M.gguf',
    licence: 'Apache-2.0',
    homepage: `${HF}Qwen/Qwen2.5-7B-Instruct`,
    approxBytes: 4_680_000_000,
    kvBytesPerToken: kvBytes(28, 4, 128),
    summary: 'The best answers here on 16 GB or more: reasoning, many languages, tables and JSON.',
  }),
  q4km({
    id: 'llama-3.1-8b-instruct-q4_k_m',
    name: 'Llama 3.1 8B Instruct (Q4_K_M GGUF)',
    repo: 'bartowski/Meta-Llama-3.1-8B-Instruct-GGUF',
    file: 'Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf',
    licence: 'Llama 3.1 Community License',
    homepage: `${HF}meta-llama/Llama-3.1-8B-Instruct`,
    approxBytes: 4_920_000_000,
    kvBytesPerToken: kvBytes(32, 8, 128),
    summary: 'The largest here: thorough answers and summaries on 16 GB or more; slow on 2 cores.',
  }),
];
