import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../server/config/load-settings.js';
import { tempDir } from '../helpers/app.js';
import { KEY, lecternDone, lecternInPty } from '../helpers/pty.js';

// `lectern init` as a person runs it: in a terminal answering each question key by key, by flags, and
// without a terminal; then `--help` of every command.

const load = (cwd: string, file = 'lectern.yaml') => loadSettings({ env: {}, cwd, configPath: file });

describe('lectern init', () => {
  it('asks each question on a terminal with its default, refuses wrong answers with the allowed ones, and writes a commented lectern.yaml', async () => {
    const cwd = tempDir('lectern-init-');
    const run = lecternInPty(['init'], { cwd });
    const answer = async (question: string, keys: string) => {
      const from = run.text().length;
      await run.waitFor(question, { from: Math.max(0, from - 200) });
      await run.type(keys);
    };
    // Line editing: a typo fixed with the arrow keys before Enter.
    await answer('Data folder', `./my-dta${KEY.left}${KEY.left}a${KEY.right}${KEY.right}${KEY.enter}`);
    // Tab completes a choice. Node's readline completes only on a Tab that ends what it reads at once (in pasted
    // text a Tab is a character), and keys typed on a busy machine can arrive together: Enter waits for the completion.
    const provider = run.text().length;
    await answer('LLM provider', `lo${KEY.tab}`);
    await run.waitFor(/LLM provider[^\n]*\(local\) local/, { from: Math.max(0, provider - 200) });
    await run.type(KEY.enter);
    await answer('LLM model', KEY.enter);
    await answer('Embedding provider', KEY.enter);
    await answer('Embedding model', KEY.enter);
    await answer('Vector store', `faiss${KEY.enter}`);
    await run.waitFor('faiss is not one of usearch');
    await run.type(`usearch${KEY.enter}`);
    await answer('Chunk size', `300${KEY.enter}`);
    await answer('Chunk overlap', `400${KEY.enter}`);
    await run.waitFor('the overlap must be smaller than the chunk size (300)');
    await run.type(`30${KEY.enter}`);
    await answer('Encrypt chats', `y${KEY.enter}`);
    await answer('Server host', KEY.enter);
    await answer('Server port', `8123${KEY.enter}`);
    expect(await run.exited).toBe(0);
    const shown = run.text();
    // Every question showed its default.
    for (const d of [
      '(local)',
      '(smollm2-135m-instruct-q4_1)',
      '(all-minilm-l6-v2-int8-pypi)',
      '(usearch)',
      '(512)',
      '(y/N)',
      '(127.0.0.1)',
      '(8000)',
    ])
      expect(shown).toContain(d);
    expect(shown).toContain(`Wrote ${join(cwd, 'lectern.yaml')}`);
    expect(shown).toMatch(
      /Next steps:[\s\S]*lectern models pull smollm2-135m-instruct-q4_1[\s\S]*lectern bot create[\s\S]*lectern add-doc[\s\S]*lectern chat/,
    );
    const yaml = readFileSync(join(cwd, 'lectern.yaml'), 'utf8');
    expect(yaml.split('\n').filter((l) => l.startsWith('#')).length).toBeGreaterThan(10);
    expect(load(cwd)).toMatchObject({
      data_dir: join(cwd, 'my-data'),
      llm_provider: 'local',
      chat_model: 'smollm2-135m-instruct-q4_1',
      embedding_model: 'all-minilm-l6-v2-int8-pypi',
      chunk_size: 300,
      chunk_overlap: 30,
      encrypt_chats: true,
      host: '127.0.0.1',
      port: 8123,
    });
  });

  it('asks nothing when flags give every answer, says --mongo is not needed, and never overwrites without --force', async () => {
    const cwd = tempDir('lectern-init-');
    const flags = [
      'init',
      '--data-dir',
      'store',
      '--llm-provider',
      'ollama',
      '--model-name',
      'llama3.2',
      '--embedding-provider',
      'local',
      '--embedding-model',
      'all-minilm-l6-v2-int8-pypi',
      '--vectorstore-provider',
      'usearch',
      '--chunk-size',
      '256',
      '--chunk-overlap',
      '32',
      '--encrypt-chats',
      'false',
      '--host',
      '0.0.0.0',
      '--port',
      '9001',
      '--mongo',
      'mongodb://localhost:27017',
      '-o',
      'conf/bots.yaml',
    ];
    const first = await lecternDone(flags, { cwd, pty: true });
    expect(first.code).toBe(0);
    expect(first.stdout).not.toContain('?');
    expect(first.stdout).toContain('Lectern keeps its data in SQLite under the data folder');
    expect(first.stdout).toContain('-c conf/bots.yaml');
    expect(load(cwd, 'conf/bots.yaml')).toMatchObject({
      data_dir: join(cwd, 'store'),
      llm_provider: 'ollama',
      llm_model: 'llama3.2',
      chunk_size: 256,
      chunk_overlap: 32,
      host: '0.0.0.0',
      port: 9001,
    });

    writeFileSync(join(cwd, 'conf/bots.yaml'), '# mine\n');
    const again = await lecternDone(flags, { cwd, pty: true });
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(/lectern init: .*conf\/bots\.yaml already exists \(hint: add --force/);
    expect(readFileSync(join(cwd, 'conf/bots.yaml'), 'utf8')).toBe('# mine\n');
    expect((await lecternDone([...flags, '--force'], { cwd, pty: true })).code).toBe(0);
    expect(load(cwd, 'conf/bots.yaml').port).toBe(9001);

    // --yes on a terminal takes every default.
    const yes = await lecternDone(['init', '--yes', '--data-dir', 'd'], { cwd, pty: true });
    expect(yes.code).toBe(0);
    expect(yes.stdout).not.toContain('?');
    expect(load(cwd)).toMatchObject({ chunk_size: 512, chunk_overlap: 64, port: 8000, llm_provider: 'local' });
  });

  it('asks nothing without a terminal, and refuses a wrong value with the allowed ones (exit 2)', async () => {
    const cwd = tempDir('lectern-init-');
    const piped = await lecternDone(['init', '--chunk-size', '1024'], { cwd });
    expect(piped.code).toBe(0);
    expect(load(cwd)).toMatchObject({ chunk_size: 1024, chunk_overlap: 64 });

    const cases: [string[], RegExp][] = [
      [['--llm-provider', 'anthropic'], /Allowed choices are local, openai, ollama, extractive/],
      [
        ['--model-name', 'gpt-4o'],
        /gpt-4o is not a local chat model Lectern knows \(allowed: smollm2-135m-instruct-q4_1, .*, llama-3\.1-8b-instruct-q4_k_m\)/,
      ],
      [['--vectorstore-provider', 'faiss'], /Allowed choices are usearch/],
      [['--chunk-size', '10'], /the chunk size must be a whole number from 32 to 8192/],
      [['--encrypt-chats', 'maybe'], /--encrypt-chats: maybe is neither yes nor no \(hint: give true or false\)/],
    ];
    const runs = await Promise.all(cases.map(([args]) => lecternDone(['init', '-o', 'other.yaml', ...args], { cwd })));
    runs.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(2);
      expect(r.stderr).toMatch(cases[i]![1]);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });
    expect(existsSync(join(cwd, 'other.yaml'))).toBe(false);
  });

  it('turns a Long-Trainer config into lectern.yaml (-c), saying what it ignores', async () => {
    const cwd = tempDir('lectern-init-');
    writeFileSync(
      join(cwd, 'longtrainer.yaml'),
      'mongo_endpoint: mongodb://localhost:27017\nllm:\n  provider: local\n  model_name: smollm2-135m-instruct-q4_1\nembedding:\n  provider: openai\n  model_name: text-embedding-3-small\n' +
        'vector_store:\n  provider: faiss\nchunking:\n  chunk_size: 1024\n  chunk_overlap: 100\nencrypt_chats: false\nserver:\n  host: 0.0.0.0\n  port: 8000\n',
    );
    const r = await lecternDone(['init', '-c', 'longtrainer.yaml', '--yes', '--data-dir', 'data'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('mongo_endpoint ignored: Lectern keeps its data in SQLite');
    expect(r.stderr).toContain("vector_store faiss ignored: Lectern's vector store is usearch");
    expect(r.stderr).toContain('embedding.provider openai ignored');
    expect(load(cwd)).toMatchObject({
      chunk_size: 1024,
      chunk_overlap: 100,
      host: '0.0.0.0',
      embedding_model: 'all-minilm-l6-v2-int8-pypi',
    });
  });
});

// Every command's --help is walked in help.test.ts.
describe('usage errors', () => {
  it('a usage error is one line with a hint and exit status 2', async () => {
    const cwd = tempDir('lectern-help-');
    const [unknown, missing] = await Promise.all([
      lecternDone(['bot', 'list', '--colour'], { cwd }),
      lecternDone(['add-doc', 'only-a-bot'], { cwd }),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe("lectern bot list: unknown option '--colour' (hint: lectern bot list --help)");
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      "lectern add-doc: missing required argument 'path_or_url' (hint: lectern add-doc --help)",
    );
  });
});
