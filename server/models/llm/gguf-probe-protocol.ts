/** What the GGUF probe (gguf-probe.ts, a child process) answers on its one line of stdout. */
export interface GgufFacts {
  /** general.architecture: llama, gemma3, qwen2… */
  architecture: string;
  /** general.name and general.license, when the file states them. */
  name: string | null;
  licence: string | null;
  parameters: number;
  /** llama.cpp's file type (general.file_type) in lower case: q4_k_m, q8_0, f16… */
  quantization: string | null;
  /** The context the model was trained with. */
  contextLength: number | null;
  chatTemplate: string | null;
  /** node-llama-cpp's chat wrapper for the template (Lectern's llama host picks the same one). */
  chatWrapper: string;
  sizeBytes: number;
}

export type GgufProbeResult =
  | { ok: true; facts: GgufFacts }
  | { ok: false; code: 'MODEL_FILE_INVALID' | 'MODEL_NO_CHAT_TEMPLATE'; message: string };
