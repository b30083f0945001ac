import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerWithSchema, compileAnswerSchema } from '../../server/core/bots/schema-answer.js';
import {
  resolveChatGenerator,
  type ChatGenerator,
  type ChatProviderDeps,
  type LlmChoice,
} from '../../server/core/chat/chat-providers.js';
import { NET_DEFAULTS } from '../../server/core/net/defaults.js';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import type { ChatMessage } from '../../server/models/llm/llm-protocol.js';
import { createLlmRuntime, type LlmRuntime } from '../../server/models/llm/llm-runtime.js';
import { createModelManager } from '../../server/models/manager.js';
import { repoRoot, tempDir } from '../helpers/app.js';
import { installChatModel, SMOLLM2 } from '../helpers/chat-flow.js';
import { startChatServer } from '../helpers/chat-servers.js';
import type { ProviderServer } from '../helpers/provider-request.js';

// Schema answers through the real generators: SmolLM2-135M in the real llama host (decoding under the
// schema's grammar), and the OpenAI-compatible and Ollama protocol servers (stories260K behind them, which
// honour the response format as llama.cpp server and Ollama do). Greedy, with few tokens, for 2 shared cores.
let dataDir: string;
let llm: LlmRuntime;
let openai: ProviderServer;
let ollama: ProviderServer;
let deps: ChatProviderDeps;
beforeAll(async () => {
  dataDir = tempDir();
  await installChatModel(dataDir, SMOLLM2);
  openai = await startChatServer('openai', { apiKey: 'sk-schema', model: 'gpt-local' });
  ollama = await startChatServer('ollama', { model: 'llama-local' });
  const net = createGuardedFetch({
    ...NET_DEFAULTS,
    allowedPrivateHosts: [new URL(openai.url).host, new URL(ollama.url).host],
  });
  llm = createLlmRuntime({
    hostFile: join(repoRoot, 'dist', 'llm-host.js'),
    threads: 1,
    log: pino({ level: 'silent' }),
  });
  deps = { models: createModelManager({ modelsDir: join(dataDir, 'models'), net }), llm, defaultModel: SMOLLM2, net };
});
afterAll(async () => {
  await llm?.close();
  await openai?.close();
  await ollama?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The real generator, with each call's messages and text kept: how many attempts were made, and what. */
async function recorded(choice: LlmChoice) {
  const real = await resolveChatGenerator(choice, deps);
  const calls: { messages: ChatMessage[]; jsonSchema: unknown; text: string }[] = [];
  const generator: ChatGenerator = {
    provider: real.provider,
    model: real.model,
    sourceText: real.sourceText,
    async generate(messages, o) {
      const r = await real.generate(messages, o);
      calls.push({ messages, jsonSchema: o.jsonSchema, text: r.text });
      return r;
    },
  };
  return { generator, calls };
}

const plants: ChatMessage[] = [
  {
    role: 'system',
    content: 'You answer questions about plants from this note: Chlorophyll in the leaves captures sunlight.',
  },
  { role: 'user', content: 'What does chlorophyll capture?' },
];
const answerSchema = {
  type: 'object',
  properties: { answer: { type: 'string', maxLength: 60 }, confident: { type: 'boolean' } },
  required: ['answer', 'confident'],
  additionalProperties: false,
};

describe('schema answers with SmolLM2 (local, grammar-constrained)', () => {
  it('answers a JSON value valid against the schema on the first attempt, decoded under the mapped grammar', async () => {
    const { generator, calls } = await recorded({ provider: 'local', model: SMOLLM2 });
    const r = await answerWithSchema(generator, plants, answerSchema, { maxTokens: 60, temperature: 0 });
    expect(r.attempts).toBe(1);
    expect(calls).toHaveLength(1);
    expect(compileAnswerSchema(answerSchema).errorsOf(r.value)).toEqual([]);
    expect(r.value).toEqual({ answer: expect.any(String), confident: expect.any(Boolean) });
    // Under the grammar the text is the JSON itself: no prose, no fences.
    expect(JSON.parse(r.raw)).toEqual(r.value);
    expect(r.completionTokens).toBeGreaterThan(0);
    // The local model gets the grammar subset (no `required`, no additionalProperties: false), the prompt the caller's schema.
    expect(calls[0]!.jsonSchema).toEqual({
      type: 'object',
      properties: { answer: { type: 'string', maxLength: 60 }, confident: { type: 'boolean' } },
    });
    expect(calls[0]!.messages[0]!.content).toContain('You answer questions about plants');
    expect(calls[0]!.messages[0]!.content).toContain(JSON.stringify(answerSchema));
  });

  it('a constraint the grammar cannot enforce ends in 422 SCHEMA_UNSATISFIED after exactly one retry, with the errors and the raw output', async () => {
    const { generator, calls } = await recorded({ provider: 'local', model: SMOLLM2 });
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', maxLength: 24, pattern: '^ZQX-[0-9]{6}-QXZ$' } },
      required: ['code'],
    };
    const err = await answerWithSchema(generator, [{ role: 'user', content: 'Give me the shipment code.' }], schema, {
      maxTokens: 40,
      temperature: 0,
    }).then(
      () => undefined,
      (e: unknown) =>
        e as {
          code: string;
          status: number;
          details: { errors: { path: string; keyword: string }[]; raw: string; attempts: number };
        },
    );
    expect(err).toMatchObject({ code: 'SCHEMA_UNSATISFIED', status: 422 });
    expect(calls).toHaveLength(2);
    expect(err!.details.attempts).toBe(2);
    expect(err!.details.raw).toBe(calls[1]!.text);
    // The grammar held the shape (both answers parse, with a string code); only the pattern failed.
    for (const c of calls) expect(JSON.parse(c.text)).toEqual({ code: expect.any(String) });
    expect(err!.details.errors).toEqual([expect.objectContaining({ path: '/code', keyword: 'pattern' })]);
    // The retry showed the model its first answer and what was wrong with it.
    const retry = calls[1]!.messages;
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: calls[0]!.text });
    expect(retry.at(-1)!.role).toBe('user');
    expect(retry.at(-1)!.content).toContain('/code: must match pattern "^ZQX-[0-9]{6}-QXZ$"');
  });
});

describe('schema answers with remote providers (their JSON-schema response format)', () => {
  const schema = {
    type: 'object',
    properties: { answer: { type: 'string', maxLength: 40 } },
    required: ['answer'],
    additionalProperties: false,
  };

  /** The OpenAI-protocol server, with the key it wants. */
  const openaiChoice = (): LlmChoice => ({
    provider: 'openai',
    model: 'gpt-local',
    base_url: openai.url,
    api_key: 'sk-schema',
  });

  it("openai: response_format json_schema carries the caller's whole schema; the answer validates", async () => {
    const { generator } = await recorded(openaiChoice());
    const r = await answerWithSchema(generator, plants, schema, { maxTokens: 40, temperature: 0 });
    const seen = openai.requests.at(-1)!;
    expect(seen.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema, strict: false },
    });
    expect(seen.body.messages[0].content).toContain(JSON.stringify(schema));
    expect(r).toMatchObject({ attempts: 1, raw: seen.generated });
    expect(r.value).toEqual(JSON.parse(seen.generated!));
    expect(compileAnswerSchema(schema).errorsOf(r.value)).toEqual([]);
  });

  it("ollama: format is the caller's whole schema; the answer validates", async () => {
    const { generator } = await recorded({ provider: 'ollama', model: 'llama-local', base_url: ollama.url });
    const r = await answerWithSchema(generator, plants, schema, { maxTokens: 40, temperature: 0 });
    const seen = ollama.requests.at(-1)!;
    expect(seen.body.format).toEqual(schema);
    expect(seen.body).not.toHaveProperty('response_format');
    expect(r).toMatchObject({ attempts: 1, raw: seen.generated });
    expect(r.value).toEqual(JSON.parse(seen.generated!));
  });

  it('without a schema neither format is sent (plain chat is unchanged)', async () => {
    const { generator } = await recorded(openaiChoice());
    await generator.generate(plants, { maxTokens: 4, temperature: 0 });
    expect(openai.requests.at(-1)!.body).not.toHaveProperty('response_format');
  });
});
