import { join } from 'node:path';
import { pino } from 'pino';
import { grammarSchemaOf } from '../../server/core/bots/grammar-schema.js';
import type { ChatMessage } from '../../server/models/llm/llm-protocol.js';
import { createLlmRuntime } from '../../server/models/llm/llm-runtime.js';
import { repoRoot } from './app.js';
import { type ProviderServer, startProviderServer } from './provider-request.js';
import { ensureTestModels } from './test-models.js';

/**
 * A real chat server on loopback, generating with llama.cpp (the stories260K GGUF through Lectern's own
 * llama host, so it answers in milliseconds) and speaking either OpenAI's streamed /v1/chat/completions
 * (Server-Sent Events) or Ollama's /api/chat (one JSON object per line): what the remote providers talk to.
 * A JSON-schema response format (OpenAI's `response_format`, Ollama's `format`) is honoured as llama.cpp
 * server and Ollama do, by decoding under the schema's grammar.
 */
export async function startChatServer(
  protocol: 'openai' | 'ollama',
  opts: { apiKey?: string; model: string },
): Promise<ProviderServer> {
  const { stories260k } = await ensureTestModels();
  const llm = createLlmRuntime({
    hostFile: join(repoRoot, 'dist', 'llm-host.js'),
    threads: 1,
    log: pino({ level: 'silent' }),
  });
  const path = protocol === 'openai' ? '/v1/chat/completions' : '/api/chat';
  return startProviderServer(
    { path, ...opts },
    async (seen, res) => {
      const { body } = seen;
      const stop = new AbortController();
      res.on('close', () => stop.abort());
      // The model here reads text only: OpenAI's content parts give their text (the images stay in `requests`).
      const messages = (
        body.messages as { role: ChatMessage['role']; content: string | { type: string; text?: string }[] }[]
      ).map((m) => ({
        role: m.role,
        content:
          typeof m.content === 'string'
            ? m.content
            : m.content.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n'),
      }));
      const maxTokens = protocol === 'openai' ? body.max_tokens : body.options?.num_predict;
      const schema = protocol === 'openai' ? body.response_format?.json_schema?.schema : body.format;
      const jsonSchema = typeof schema === 'object' && schema !== null ? grammarSchemaOf(schema) : undefined;
      const generate = async (piece: (text: string) => string) => {
        const r = await llm.generate({
          modelPath: stories260k.gguf,
          contextTokens: 512,
          messages,
          maxTokens,
          jsonSchema,
          signal: stop.signal,
          onToken: (text) => res.write(piece(text)),
        });
        seen.generated = r.text;
        return { ...r, finish: r.stopReason === 'maxTokens' ? 'length' : 'stop' };
      };
      if (protocol === 'openai') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const r = await generate(
          (text) =>
            `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`,
        );
        res.write(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: r.finish }], usage: { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens } })}\n\n`,
        );
        return res.end('data: [DONE]\n\n');
      }
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const r = await generate(
        (text) =>
          `${JSON.stringify({ model: opts.model, message: { role: 'assistant', content: text }, done: false })}\n`,
      );
      return res.end(
        `${JSON.stringify({ model: opts.model, message: { role: 'assistant', content: '' }, done: true, done_reason: r.finish, prompt_eval_count: r.promptTokens, eval_count: r.completionTokens })}\n`,
      );
    },
    () => llm.close(),
  );
}
