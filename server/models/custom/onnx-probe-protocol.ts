import type { Pooling } from '../../core/embedding/pooling.js';

/** What the ONNX probe (onnx-probe.ts, a child process) is given as its one argument, in JSON. */
export interface OnnxProbeRequest {
  onnxPath: string;
  tokenizerPath: string;
  pooling: Pooling;
  normalize: boolean;
  maxTokens: number;
}

/** Its one line of stdout. */
export type OnnxProbeResult =
  | {
      ok: true;
      /** The length of the vector of a test sentence, and whether every value of it is a finite number. */
      dimensions: number;
      finite: boolean;
      /** The element type holding most of the graph's weight bytes (fp32, int8, uint8, fp16…), `unknown` when they live outside it. */
      weights: string;
      /** Tokens of the test sentence, special tokens included: proof the tokenizer ran. */
      tokens: number;
    }
  | { ok: false; code: 'MODEL_FILE_INVALID' | 'MODEL_UNSUPPORTED'; message: string };
