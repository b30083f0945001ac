/**
 * Messages between the server and its llama host process (llm-host.ts), over Node's IPC channel.
 * server -> host: `generate` (one answer, streamed back), `abort` (stop that answer now).
 * host -> server: `token` (each piece of text as it is sampled), `done` (the whole answer and counts), `error`.
 * Plain JSON both ways: errors carry a `code` from the error catalogue, never a class.
 */

/** A JSON Schema as plain JSON (for the host: node-llama-cpp's grammar subset, GbnfJsonSchema). */
export type JsonSchema = { readonly [key: string]: unknown };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /**
   * Images a multimodal remote model is shown with the text (vision chats). The local llama host reads only
   * the text: the images reach it as their OCR text, among the sources.
   */
  images?: { media_type: string; base64: string }[];
}

export interface GenerateRequest {
  type: 'generate';
  id: number;
  modelPath: string;
  contextTokens: number;
  /** CPU threads that write the answer. */
  threads: number;
  /** CPU threads that read the prompt (more than `threads` while nothing else runs). */
  prefillThreads: number;
  /** A system message first, earlier turns in order, the question last. */
  messages: ChatMessage[];
  maxTokens: number;
  /** 0 = greedy, so the same question over the same sources gives the same answer. */
  temperature: number;
  /** Decode under the grammar of this schema (node-llama-cpp's subset): the answer is JSON of that shape. */
  jsonSchema?: JsonSchema;
}

export interface AbortRequest {
  type: 'abort';
  id: number;
}

export type HostRequest = GenerateRequest | AbortRequest;

export type StopReason =
  | 'eogToken'
  | 'maxTokens'
  | 'abort'
  | 'stopGenerationTrigger'
  | 'customStopTrigger'
  | 'functionCalls';

export interface GenerateDone {
  type: 'done';
  id: number;
  text: string;
  stopReason: StopReason;
  /** The whole prompt, in tokens. */
  promptTokens: number;
  /** Of those, the ones kept read from the previous answer (the same system prompt, say). */
  cachedPromptTokens: number;
  completionTokens: number;
  /** Time spent loading the model for this request (0 once it is warm). */
  loadMs: number;
}

export type HostReply =
  | { type: 'token'; id: number; text: string }
  | GenerateDone
  | { type: 'error'; id: number; code: string; message: string };
