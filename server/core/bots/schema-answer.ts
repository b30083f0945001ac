/**
 * Answers that are JSON values valid against a caller's JSON Schema (the bots message route's `schema`).
 * The local model decodes under a grammar made from the schema (mapped onto node-llama-cpp's subset, see
 * grammar-schema.ts); remote providers get their JSON-schema response format; every model is also told the
 * schema in the prompt. Whatever comes back is validated against the whole schema with Ajv; one retry shows
 * the model its errors, and a second failure is 422 SCHEMA_UNSATISFIED with the errors and the raw output.
 */
import type { GbnfJsonSchema } from 'node-llama-cpp';
import vm from 'node:vm';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ChatMessage, StopReason } from '../../models/llm/llm-protocol.js';
import type { ChatGenerator } from '../chat/chat-providers.js';
import { AppError } from '../errors.js';
import { grammarSchemaOf } from './grammar-schema.js';

/** A schema's text may be this long (UTF-8 bytes of its JSON) and nest this deep, no more. */
export const SCHEMA_MAX_BYTES = 64 * 1024;
export const SCHEMA_MAX_DEPTH = 32;
/** Longer schemas are not repeated in the prompt (it would crowd out the question on a small context). */
const PROMPT_SCHEMA_CHARS = 6000;
/** The errors shown to the model when it retries. */
const RETRY_ERRORS = 10;

export type JsonSchemaObject = { readonly [key: string]: unknown };

/** One way an answer misses the schema: where (a JSON pointer into the answer), which keyword, what. */
export interface SchemaViolation {
  path: string;
  keyword: string;
  message: string;
  params?: Record<string, unknown>;
}

export interface AnswerSchema {
  /** The caller's schema as given: what remote providers get and what answers are checked against. */
  readonly schema: JsonSchemaObject;
  /** The same mapped onto node-llama-cpp's grammar subset: what the local model decodes under. */
  readonly grammar: GbnfJsonSchema;
  /** Ajv's errors for a value; none when it is valid. */
  errorsOf(value: unknown): SchemaViolation[];
}

export interface SchemaAnswer {
  value: unknown;
  /** The model's text the value was parsed from. */
  raw: string;
  /** 1, or 2 when the first answer failed and the retry passed. */
  attempts: number;
  stopReason: StopReason;
  /** Summed over the attempts. */
  promptTokens: number;
  completionTokens: number;
  loadMs: number;
  /** From the call to the first piece of text the model decoded (the first attempt's): the answer's time to first token. */
  firstTokenMs: number;
  /** Summed over the attempts, first piece of text to last: what tokens per second are measured over. */
  decodeMs: number;
}

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

const invalid = (message: string, details?: unknown): AppError => new AppError('SCHEMA_INVALID', message, details);

function depthExceeds(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit === 0) return true;
  return Object.values(value).some((v) => depthExceeds(v, limit - 1));
}

/** The longest one `pattern` may take to match one string of an answer. */
export const PATTERN_TIMEOUT_MS = 100;

/** Thrown out of Ajv's validate by a pattern that ran out of time; errorsOf turns it into a violation. */
class PatternTimeout extends Error {
  constructor(readonly pattern: string) {
    super(
      `pattern ${JSON.stringify(pattern)} took more than ${PATTERN_TIMEOUT_MS} ms to match: the answer cannot be checked against it`,
    );
  }
}

/**
 * Ajv's RegExp engine for `pattern` and `patternProperties`, each match run with a time limit. A caller's
 * pattern such as `^(a+)+$` backtracks exponentially on a near-miss and would hold the event loop;
 * `vm`'s timeout interrupts the match wherever it is. Syntax errors still surface when Ajv compiles.
 */
function timedRegExp(): RegExpEngine {
  const sandbox = vm.createContext({ re: /(?:)/, s: '' });
  const engine = (pattern: string, flags: string): RegExpLike & { toString(): string } => {
    const re = new RegExp(pattern, flags);
    return {
      test(str: string): boolean {
        Object.assign(sandbox, { re, s: str });
        try {
          return vm.runInContext('re.test(s)', sandbox, { timeout: PATTERN_TIMEOUT_MS }) as boolean;
        } catch (err) {
          if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new PatternTimeout(pattern);
          throw err;
        }
      },
      // Ajv shares one compiled pattern between places by this key.
      toString: () => re.toString(),
    };
  };
  return Object.assign(engine, { code: 'timedRegExp' });
}

function checkBounds(schema: unknown): asserts schema is JsonSchemaObject {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw invalid('schema must be a JSON Schema object');
  if (depthExceeds(schema, SCHEMA_MAX_DEPTH)) throw invalid(`schema nests deeper than ${SCHEMA_MAX_DEPTH} levels`);
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(schema));
  } catch {
    throw invalid('schema is not plain JSON');
  }
  if (bytes > SCHEMA_MAX_BYTES) throw invalid(`schema is ${bytes} bytes, more than ${SCHEMA_MAX_BYTES}`);
}

const violationOf = (e: ErrorObject): SchemaViolation => ({
  path: e.instancePath,
  keyword: e.keyword,
  message: e.message ?? e.keyword,
  params: e.params,
});

/**
 * Compiles a caller's schema (draft-07 unless `$schema` names 2020-12) with ajv-formats, all errors
 * reported, unknown keywords allowed, each pattern match time-limited. 400 SCHEMA_INVALID when it is not
 * an object, is over the size or depth bounds, names another draft, or does not compile (Ajv's message;
 * remote `$ref`s are never fetched).
 */
export function compileAnswerSchema(schema: unknown): AnswerSchema {
  checkBounds(schema);
  const draft = schema.$schema;
  if (draft !== undefined && (typeof draft !== 'string' || (!DRAFT_07.test(draft) && !DRAFT_2020.test(draft)))) {
    throw invalid(`$schema ${JSON.stringify(draft)} is not supported: use draft-07 (the default) or 2020-12`);
  }
  // A fresh Ajv per schema: a shared one would keep every schema it compiled, and clash on reused $ids.
  const options = { allErrors: true, strict: false, code: { regExp: timedRegExp() } };
  const ajv =
    typeof draft === 'string' && DRAFT_2020.test(draft) ? new Ajv2020.default(options) : new Ajv.default(options);
  addFormats.default(ajv);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (err) {
    throw invalid(`schema does not compile: ${(err as Error).message}`);
  }
  return {
    schema,
    grammar: grammarSchemaOf(schema),
    errorsOf(value) {
      try {
        return validate(value) ? [] : (validate.errors ?? []).map(violationOf);
      } catch (err) {
        if (err instanceof PatternTimeout)
          return [{ path: '', keyword: 'pattern', message: err.message, params: { pattern: err.pattern } }];
        throw err;
      }
    },
  };
}

/**
 * The schema of a request that asks for one, checked before anything else runs: `stream` with `schema` is
 * 400 STREAM_WITH_SCHEMA (a value is only known valid once it is whole), a bad schema 400 SCHEMA_INVALID.
 */
export function answerSchemaOfRequest(req: { schema?: unknown; stream?: boolean }): AnswerSchema | undefined {
  if (req.schema === undefined || req.schema === null) return undefined;
  if (req.stream)
    throw new AppError(
      'STREAM_WITH_SCHEMA',
      'stream cannot be combined with schema: ask without stream for a JSON answer',
    );
  return compileAnswerSchema(req.schema);
}

/** The messages with the instruction to answer as JSON matching the schema, in the system message. */
export function withSchemaInstruction(messages: ChatMessage[], schema: JsonSchemaObject): ChatMessage[] {
  const text = JSON.stringify(schema);
  const instruction =
    text.length <= PROMPT_SCHEMA_CHARS
      ? `Answer with one JSON value only, no other text and no code fences. It must be valid against this JSON Schema:\n${text}`
      : 'Answer with one JSON value only, no other text and no code fences. It is checked against a JSON Schema.';
  const [first, ...rest] = messages;
  if (first?.role === 'system') return [{ role: 'system', content: `${first.content}\n\n${instruction}` }, ...rest];
  return [{ role: 'system', content: instruction }, ...messages];
}

const FENCED = /```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/;

/** The JSON value in a model's text: code fences stripped, prose around one object or array tolerated. */
export function parseAnswer(text: string, stopReason?: StopReason): { value: unknown } | { error: SchemaViolation } {
  const body = (FENCED.exec(text)?.[1] ?? text).trim();
  const fail = (message: string) => ({ error: { path: '', keyword: 'json', message } });
  if (!body) return fail('the answer is empty');
  try {
    return { value: JSON.parse(body) };
  } catch (err) {
    const start = body.search(/[[{]/);
    const end = Math.max(body.lastIndexOf('}'), body.lastIndexOf(']'));
    if (start >= 0 && end > start) {
      try {
        return { value: JSON.parse(body.slice(start, end + 1)) };
      } catch {
        // Reported below with the whole answer's parse error.
      }
    }
    if (stopReason === 'maxTokens') return fail('the answer was cut off at max_tokens before the JSON value ended');
    return fail(`the answer is not JSON: ${(err as Error).message}`);
  }
}

function retryMessage(errors: SchemaViolation[]): ChatMessage {
  const lines = errors.slice(0, RETRY_ERRORS).map((e) => `- ${e.path || 'the value'}: ${e.message}`);
  if (errors.length > RETRY_ERRORS) lines.push(`- and ${errors.length - RETRY_ERRORS} more`);
  return {
    role: 'user',
    content: `That answer does not match the JSON Schema:\n${lines.join('\n')}\nAnswer again with only the corrected JSON value.`,
  };
}

/**
 * Asks for an answer that is a JSON value valid against `schema` (a caller's schema, or one compiled by
 * compileAnswerSchema): the local model decodes under the schema's grammar, remote ones get it as their
 * response format. One retry with the validation errors and the previous output; still invalid is 422
 * SCHEMA_UNSATISFIED with `{ errors, raw, attempts, previous: { raw, errors } }` (the retry's, then the first attempt's). An abort rejects with the signal's reason.
 */
export async function answerWithSchema(
  generator: ChatGenerator,
  messages: ChatMessage[],
  schema: unknown,
  opts: { maxTokens: number; temperature: number; signal?: AbortSignal },
): Promise<SchemaAnswer> {
  const compiled = isAnswerSchema(schema) ? schema : compileAnswerSchema(schema);
  const jsonSchema = generator.provider === 'local' ? compiled.grammar : compiled.schema;
  let conversation = withSchemaInstruction(messages, compiled.schema);
  const used = { promptTokens: 0, completionTokens: 0, loadMs: 0, decodeMs: 0 };
  const started = performance.now();
  let firstTokenMs: number | undefined;
  let previous: { raw: string; errors: SchemaViolation[] } | undefined;
  for (let attempt = 1; ; attempt++) {
    // The answer is not streamed to the caller, but its tokens still come one by one: timed, for the bench.
    let first: number | undefined;
    let last = 0;
    const onToken = () => {
      last = performance.now();
      first ??= last;
      firstTokenMs ??= last - started;
    };
    const r = await generator.generate(conversation, {
      maxTokens: opts.maxTokens,
      temperature: opts.temperature,
      signal: opts.signal,
      jsonSchema,
      onToken,
    });
    opts.signal?.throwIfAborted();
    used.promptTokens += r.promptTokens;
    used.completionTokens += r.completionTokens;
    used.loadMs += r.loadMs;
    if (first !== undefined) used.decodeMs += last - first;
    const parsed = parseAnswer(r.text, r.stopReason);
    const errors = 'error' in parsed ? [parsed.error] : compiled.errorsOf(parsed.value);
    if ('value' in parsed && errors.length === 0) {
      return {
        value: parsed.value,
        raw: r.text,
        attempts: attempt,
        stopReason: r.stopReason,
        ...used,
        firstTokenMs: firstTokenMs ?? performance.now() - started,
      };
    }
    if (attempt === 2) {
      // Both attempts are reported: the retry's errors and output, and the first answer the retry was shown.
      throw new AppError('SCHEMA_UNSATISFIED', `the answer did not match the schema after ${attempt} attempts`, {
        errors,
        raw: r.text,
        attempts: attempt,
        previous,
      });
    }
    previous = { raw: r.text, errors };
    conversation = [...conversation, { role: 'assistant', content: r.text }, retryMessage(errors)];
  }
}

function isAnswerSchema(x: unknown): x is AnswerSchema {
  const s = x as Partial<AnswerSchema> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.errorsOf === 'function' &&
    typeof s.grammar === 'object' &&
    typeof s.schema === 'object'
  );
}
