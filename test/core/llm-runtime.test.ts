import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createLlmRuntime } from '../../server/models/llm/llm-runtime.js';
import { repoRoot } from '../helpers/app.js';
import { ensureTestModels } from '../helpers/test-models.js';

const llm = createLlmRuntime({
  hostFile: join(repoRoot, 'dist', 'llm-host.js'),
  threads: 1,
  log: pino({ level: 'silent' }),
});
afterAll(async () => llm.close());
const ask = (modelPath: string, maxTokens: number, signal?: AbortSignal) =>
  llm.generate({
    modelPath,
    contextTokens: 512,
    messages: [{ role: 'user', content: 'Once upon a time' }],
    maxTokens,
    signal,
  });

describe('llama host process', () => {
  it('starts on the first request, not before, and keeps the model loaded for the next', async () => {
    expect(llm.started).toBe(false);
    const { stories260k } = await ensureTestModels();
    const first = await ask(stories260k.gguf, 8);
    expect(first.completionTokens).toBeGreaterThan(0);
    expect(first.loadMs).toBeGreaterThan(0);
    expect((await ask(stories260k.gguf, 8)).loadMs).toBe(0);
  });

  it('an answer stopped before its first token ends as aborted, not failed; the host lives on', async () => {
    const { stories260k } = await ensureTestModels();
    const pid = llm.pid;
    const stopped = await ask(stories260k.gguf, 8, AbortSignal.abort());
    expect(stopped).toMatchObject({ stopReason: 'abort', text: '', completionTokens: 0 });
    expect(llm.pid).toBe(pid);
  });

  it('a file that is not a GGUF fails that answer with LLM_FAILED; the host lives on', async () => {
    const pid = llm.pid;
    await expect(ask(join(repoRoot, 'package.json'), 8)).rejects.toMatchObject({ code: 'LLM_FAILED' });
    expect(llm.pid).toBe(pid);
  });

  it('a crash of the host (killed mid-answer) fails the answer in flight and the next request starts a new host', async () => {
    const { stories260k } = await ensureTestModels();
    const before = llm.pid!;
    const pending = ask(stories260k.gguf, 5000);
    setTimeout(() => process.kill(before, 'SIGKILL'), 200);
    await expect(pending).rejects.toMatchObject({ code: 'LLM_FAILED', message: expect.stringContaining('SIGKILL') });
    const again = await ask(stories260k.gguf, 8);
    expect(again.completionTokens).toBeGreaterThan(0);
    expect(llm.pid).not.toBe(before);
  });
});
