import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../server/config/load-settings.js';
import { tempDir } from '../helpers/app.js';
import { TEST_MODEL, TOPICS_MD } from '../helpers/embed-flow.js';
import { cliEnv, lecternDone } from '../helpers/pty.js';
import { writeMiniLmFolder } from '../helpers/st-folder.js';

// `lectern models import NAME FOLDER` for an ONNX sentence-embedding model, in a terminal with no server
// running: the command opens the data folder itself, runs the model once in its probe process and records
// it; then, named as embedding_model, it embeds a bot's document and the bot's chat retrieves with it.

let cwd = '';
let models = '';
beforeAll(async () => {
  cwd = tempDir('lectern-models-onnx-');
  await writeMiniLmFolder(join(cwd, 'minilm-st'));
  const broken = await writeMiniLmFolder(join(cwd, 'broken'));
  rmSync(join(broken, 'modules.json'));
  rmSync(join(broken, 'tokenizer.json'));
  writeFileSync(join(cwd, 'topics.md'), TOPICS_MD);
  // The catalog's embedding model is not installed here: whatever embeds, the imported model does.
  writeFileSync(
    join(cwd, 'lectern.yaml'),
    [
      `data_dir: ${join(cwd, 'data')}`,
      'document_roots:',
      `  - ${cwd}`,
      'embedding_model: my-embed',
      'llm_provider: extractive',
      '',
    ].join('\n'),
  );
  models = join(cwd, 'data', 'models');
}, 300_000);

const lectern = (args: string[], input?: string) =>
  lecternDone(args, { cwd, env: cliEnv(), pty: input === undefined, input });
/** All a command wrote: in a terminal its errors arrive on the same screen. */
const said = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr;

describe('lectern models import NAME FOLDER', () => {
  it('imports the folder as an embedding model: list shows it, verify re-hashes it', async () => {
    const done = await lectern(['models', 'import', 'my-embed', 'minilm-st']);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toMatch(
      /imported onnx\/model_quantized\.onnx, tokenizer\.json, .* as the embedding model my-embed/,
    );
    expect(done.stdout).toContain('my-embed is installed');
    expect(readdirSync(join(models, 'my-embed')).sort()).toEqual(
      [
        '1_Pooling',
        'config.json',
        'lectern-model.json',
        'modules.json',
        'onnx',
        'sentence_bert_config.json',
        'special_tokens_map.json',
        'tokenizer.json',
        'tokenizer_config.json',
      ].sort(),
    );
    const listed = await lectern(['models', 'list']);
    expect(listed.stdout).toMatch(/\* my-embed\s+384-d\s+int8\s.*installed, imported \(ONNX, mean pooling\)/);
    expect(listed.stdout).toMatch(new RegExp(`${TEST_MODEL}\\s+384-d.*not installed`));
    const row = JSON.parse((await lectern(['models', 'list', '--json'], '')).stdout).models.find(
      (m: { id: string }) => m.id === 'my-embed',
    );
    expect(row).toMatchObject({
      task: 'embedding',
      installed: true,
      dimensions: 384,
      embedding: { pooling: 'mean', normalize: true, maxTokens: 256, queryPrefix: '', passagePrefix: '' },
    });
    const verified = await lectern(['models', 'verify', 'my-embed']);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/ok\s+onnx\/model_quantized\.onnx/);
  });

  it("as embedding_model it embeds a bot's document, and the bot's chat retrieves the right chunk with it", async () => {
    const created = await lectern(['bot', 'create', '--prompt', 'You answer from the notes.', '--name', 'notes']);
    expect(created.code, created.stdout).toBe(0);
    const bot = /^([0-9a-f-]{36})$/m.exec(created.stdout)?.[1];
    expect(bot).toBeDefined();
    const added = await lectern(['add-doc', bot!, 'topics.md']);
    expect(added.code, added.stdout + added.stderr).toBe(0);
    expect(added.stdout).toMatch(/topics\.md +█+ 100% searchable/);
    // No word of the question is in the section it is about: only the imported model's vectors find it.
    const asked = await lectern(['chat', bot!, '--json'], 'how do plants make sugar from light\n');
    expect(asked.code, asked.stderr).toBe(0);
    const answer = JSON.parse(asked.stdout.trim().split('\n').at(-1)!);
    expect(answer.not_found).toBe(false);
    expect(answer.citations[0]).toMatchObject({
      source: 'topics.md',
      quote: expect.stringContaining('Chlorophyll in the leaves captures sunlight'),
    });
  });

  it('refuses a folder without what is needed, naming the files, with exit 1 and a hint; nothing stays on disk', async () => {
    const folder = () => (existsSync(models) ? readdirSync(models).sort() : []);
    const before = folder();
    const refused = await lectern(['models', 'import', 'half-there', 'broken']);
    expect(refused.code).toBe(1);
    expect(said(refused)).toMatch(
      /the folder lacks what an embedding model needs: tokenizer\.json, modules\.json \(hint: a sentence-transformers folder has them/,
    );
    // The request may state what a file would: modules.json said "normalise", --normalize says it too.
    const still = await lectern(['models', 'import', 'half-there', 'broken', '--normalize']);
    expect(still.code).toBe(1);
    expect(said(still)).toMatch(/needs: tokenizer\.json \(hint/);
    const badFlag = await lectern(['models', 'import', 'half-there', 'minilm-st', '--pooling', 'max']);
    expect(badFlag.code).toBe(2);
    expect(said(badFlag)).toContain('--pooling: max is not a pooling Lectern runs');
    const taken = await lectern(['models', 'import', 'my-embed', 'minilm-st']);
    expect(taken.code).toBe(1);
    expect(said(taken)).toContain('a model named my-embed is already installed');
    expect(folder()).toEqual(before);
    expect(JSON.parse(readFileSync(join(models, 'my-embed', 'lectern-model.json'), 'utf8'))).toMatchObject({
      id: 'my-embed',
      task: 'embedding',
      pooling: 'mean',
    });
  });

  it('lectern init offers an imported embedding model, and does not ask to pull it', async () => {
    // Piped, not in a terminal: init asks nothing and takes the defaults for what no flag gives.
    const init = await lectern(
      [
        'init',
        '-o',
        'init.yaml',
        '--data-dir',
        'data',
        '--llm-provider',
        'extractive',
        '--embedding-model',
        'my-embed',
      ],
      '',
    );
    expect(init.code, init.stdout).toBe(0);
    expect(init.stdout).not.toContain('models pull my-embed');
    expect(loadSettings({ env: {}, cwd, configPath: 'init.yaml' })).toMatchObject({ embedding_model: 'my-embed' });
    const other = await lectern(
      [
        'init',
        '-o',
        'other.yaml',
        '--data-dir',
        'data',
        '--llm-provider',
        'extractive',
        '--embedding-model',
        'not-imported',
      ],
      '',
    );
    expect(other.code).toBe(2);
    expect(said(other)).toContain('not-imported is not an embedding model Lectern knows (allowed: ');
    expect(said(other)).toContain(`${TEST_MODEL}, `);
    expect(said(other)).toContain(', my-embed)');
  });
});
