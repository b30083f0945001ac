import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { json, repoRoot, tempDir } from '../helpers/app.js';
import { storeEnvFor } from '../helpers/test-database.js';
import { ensureTestModels } from '../helpers/test-models.js';
import { useServer } from '../helpers/use-server.js';

const run = promisify(execFile);
const cli = (...args: string[]) =>
  run(process.execPath, [join(repoRoot, 'bin', 'lectern.js'), ...args], { cwd: repoRoot });
/** A command run against the data folder of the running server: it goes through the server, with its key. */
const cliOfServer = async (...args: string[]) => {
  const env = { ...process.env, SERVICE_API_KEY: server.key, ...(await storeEnvFor(server.dataDir)) };
  return run(process.execPath, [join(repoRoot, 'bin', 'lectern.js'), ...args, '--data-dir', server.dataDir], {
    cwd: repoRoot,
    env,
  });
};
const PYPI_MODEL = 'all-minilm-l6-v2-int8-pypi';

const server = useServer();

describe('models', () => {
  it('GET /models lists the catalog with files, checksums and what is installed', async () => {
    const res = await server.call('GET', '/models');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.models_dir).toBe(join(server.dataDir, 'models'));
    const ids = body.models.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['all-minilm-l6-v2-int8', 'all-minilm-l6-v2', PYPI_MODEL]));
    for (const m of body.models) {
      expect(m.installed).toBe(false);
      for (const f of m.files) {
        expect(f.url).toMatch(/^https:\/\//);
        // A checksum the publisher states is the catalog's; none is made up for the others.
        if (f.checksum === 'catalog') expect(f.sha256).toMatch(/^[0-9a-f]{64}$/);
        else expect(f).toMatchObject({ sha256: null, checksum: null, size_approximate: true });
      }
    }
    // One default per task (the embedding model embed uses, the chat model chat uses).
    const defaults = body.models.filter((m: { default: boolean; task: string }) => m.default && m.task === 'embedding');
    expect(defaults.map((m: { id: string }) => m.id)).toEqual([PYPI_MODEL]);
  });

  it('lectern models import installs the real test weights offline (through the server that owns the folder), verify checks them, list and GET /models see them', async () => {
    const { minilm } = await ensureTestModels();
    const imported = JSON.parse((await cliOfServer('models', 'import', PYPI_MODEL, minilm.dir, '--json')).stdout);
    expect(imported).toMatchObject({
      imported: ['onnx/model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'config.json'],
      missing: [],
    });
    const verified = JSON.parse((await cliOfServer('models', 'verify', PYPI_MODEL, '--json')).stdout);
    expect(verified.ok).toBe(true);
    const listed = (await cliOfServer('models', 'list')).stdout;
    expect(listed).toMatch(new RegExp(`${PYPI_MODEL}\\s.*installed`));
    const body = await json(await server.call('GET', '/models'));
    expect(body.models.find((m: { id: string }) => m.id === PYPI_MODEL).installed).toBe(true);
  });

  it('a model that is not installed: verify fails and names both ways to get it; a wrong file is refused', async () => {
    const dataDir = tempDir();
    const failed = await cli('models', 'verify', 'all-minilm-l6-v2', '--data-dir', dataDir).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect((failed as { code: number }).code).toBe(1);
    expect((failed as { stdout: string }).stdout).toContain('lectern models pull all-minilm-l6-v2');
    expect((failed as { stdout: string }).stdout).toContain('lectern models import all-minilm-l6-v2 <path>');
    const { minilm } = await ensureTestModels();
    // The PyPI export is a different file from Xenova's int8 export: importing it as that model must fail.
    const wrong = await cli('models', 'import', 'all-minilm-l6-v2-int8', minilm.onnx, '--data-dir', dataDir).catch(
      (e: { stderr: string }) => e,
    );
    expect((wrong as { stderr: string }).stderr).toMatch(/is none of all-minilm-l6-v2-int8's files/);
    const unknown = await cli('models', 'verify', 'nope', '--data-dir', dataDir).catch((e: { stderr: string }) => e);
    expect((unknown as { stderr: string }).stderr).toMatch(/Unknown model nope/);
  });
});
