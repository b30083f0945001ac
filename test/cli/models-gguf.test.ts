import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../server/config/load-settings.js';
import { tempDir } from '../helpers/app.js';
import { cliEnv, lecternDone } from '../helpers/pty.js';
import { ensureTestModels, type TestModels } from '../helpers/test-models.js';

// `lectern models import NAME FILE.gguf` with no server running: the command opens the data folder itself,
// loads the GGUF once in its probe process and records it beside the catalog's models.

let models: TestModels;
beforeAll(async () => {
  models = await ensureTestModels();
}, 300_000);

function folder() {
  const cwd = tempDir('lectern-models-gguf-');
  const run = (args: string[]) =>
    lecternDone(['models', ...args, '--data-dir', join(cwd, 'data')], { cwd, env: cliEnv() });
  return { cwd, dir: join(cwd, 'data', 'models'), run };
}

describe('lectern models import NAME FILE.gguf', () => {
  it('imports a chat GGUF under a new name: list shows it as an imported chat model, verify re-hashes it', async () => {
    const { run, dir } = folder();
    const done = await run(['import', 'tiny-chat', models.smollm2.gguf]);
    expect(done.code).toBe(0);
    expect(done.stdout).toContain('imported SmolLM2-135M-Instruct.Q4_1.gguf as the chat model tiny-chat');
    expect(readdirSync(join(dir, 'tiny-chat')).sort()).toEqual([
      'SmolLM2-135M-Instruct.Q4_1.gguf',
      'lectern-model.json',
    ]);
    const listed = await run(['list', '--json']);
    const row = JSON.parse(listed.stdout).models.find((m: { id: string }) => m.id === 'tiny-chat');
    expect(row).toMatchObject({
      task: 'chat',
      installed: true,
      weights: 'q4_1',
      sizeBytes: 98_362_432,
      custom: { architecture: 'llama', chatWrapper: 'ChatML', contextLength: 8192 },
    });
    expect((await run(['list'])).stdout).toMatch(/tiny-chat\s+chat\s+q4_1\s.*installed, imported \(llama\)/);
    expect((await run(['verify', 'tiny-chat'])).code).toBe(0);
    // The file changed on disk after the import: verify says so.
    const gguf = join(dir, 'tiny-chat', 'SmolLM2-135M-Instruct.Q4_1.gguf');
    const bytes = readFileSync(gguf);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    writeFileSync(gguf, bytes);
    const bad = await run(['verify', 'tiny-chat']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/BAD\s+SmolLM2-135M-Instruct\.Q4_1\.gguf: sha256/);
  });

  it('refuses a base model (no chat template) and a taken name with exit 1, a one-line reason and a hint; nothing stays on disk', async () => {
    const { run, dir } = folder();
    const base = await run(['import', 'gemma-base', models.gemma3.gguf]);
    expect(base.code).toBe(1);
    expect(base.stderr).toMatch(
      /gemma-3-270m-q4_k_m\.gguf: the GGUF has no chat template.*\(hint: a base model cannot hold a chat/,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect((await run(['import', 'tiny', models.stories260k.gguf])).code).toBe(1);
    expect((await run(['import', 'taken', models.smollm2.gguf])).code).toBe(0);
    const again = await run(['import', 'taken', models.smollm2.gguf]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('a model named taken is already installed');
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('lectern init offers an imported model as the local chat model, and does not ask to pull it', async () => {
    const { run, cwd } = folder();
    expect((await run(['import', 'mine', models.smollm2.gguf])).code).toBe(0);
    const init = await lecternDone(['init', '--data-dir', 'data', '--llm-provider', 'local', '--model-name', 'mine'], {
      cwd,
      env: cliEnv(),
    });
    expect(init.code).toBe(0);
    expect(init.stdout).not.toContain('models pull mine');
    expect(loadSettings({ env: {}, cwd, configPath: 'lectern.yaml' })).toMatchObject({
      llm_provider: 'local',
      chat_model: 'mine',
    });
    const other = await lecternDone(
      ['init', '-o', 'other.yaml', '--data-dir', 'data', '--model-name', 'not-imported'],
      { cwd, env: cliEnv() },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /not-imported is not a local chat model Lectern knows \(allowed: smollm2-135m-instruct-q4_1, .*, mine\)/,
    );
  });
});
