import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { memoryFit, SUGGESTED_BYTES_PER_CORE } from '../../server/models/machine-fit.js';
import { tempDir } from '../helpers/app.js';
import { cliEnv, lecternDone } from '../helpers/pty.js';

// `lectern models list` with no server running: the catalog with what each model needs, whether it fits
// this machine and the chat model suggested for it.

function folder() {
  const cwd = tempDir('lectern-models-catalog-');
  const run = (args: string[], pty = false) =>
    lecternDone(['models', ...args, '--data-dir', join(cwd, 'data')], { cwd, env: cliEnv(), pty });
  return { run };
}

describe('lectern models list', () => {
  it('--json: every model with its memory need and fit against the memory it read, and the suggestion', async () => {
    const { run } = folder();
    const done = await run(['list', '--json']);
    expect(done.code).toBe(0);
    const body = JSON.parse(done.stdout);
    const memory = { totalBytes: body.memory.total_bytes, freeBytes: body.memory.free_bytes };
    expect(memory.freeBytes).toBeGreaterThan(0);
    for (const m of body.models) expect(m.fits, m.id).toBe(memoryFit(m.memoryBytes, memory));
    const fitting = body.models
      .filter((m: any) => m.task === 'chat' && !m.testOnly && !m.notRunnable && m.fits === 'comfortably')
      .filter((m: any) => m.sizeBytes <= availableParallelism() * SUGGESTED_BYTES_PER_CORE)
      .sort((a: any, b: any) => b.memoryBytes - a.memoryBytes);
    expect(body.suggested_chat_model).toBe(fitting[0]?.id ?? null);
    expect(body.models.find((m: any) => m.id === 'qwen2.5-7b-instruct-q4_k_m')).toMatchObject({
      licence: 'Apache-2.0',
      sizeApproximate: true,
      sizeBytes: 4_680_000_000,
    });
  });

  it('in a terminal: a line per model with its size, need and fit, every catalog model runnable', async () => {
    const { run } = folder();
    const done = await run(['list'], true);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/this machine: [\d.]+ MiB free of [\d.]+ MiB/);
    expect(done.stdout).toMatch(
      /llama-3\.1-8b-instruct-q4_k_m\s+chat\s+q4_k_m\s+~4692\.1 MiB\s+needs\s+[\d.]+ MiB (fits|tight|too big)/,
    );
    // Every model of the catalog runs here (multilingual-e5-small's Unigram tokenizer too).
    expect(done.stdout).toMatch(/multilingual-e5-small-int8\s/);
    expect(done.stdout).not.toMatch(/not yet runnable here/);
    expect(done.stdout).toMatch(/^\+ \S+/m);
  });
});
