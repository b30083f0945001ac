import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, tempDir, type TestServer } from '../helpers/app.js';
import { embedAndWait, finalizedJob, startServerWithModel, TEST_MODEL } from '../helpers/embed-flow.js';
import { cliEnv, KEY, lecternInPty } from '../helpers/pty.js';
import { writeMiniLmFolder } from '../helpers/st-folder.js';

// `lectern reindex` in a real terminal, through the server that owns the data folder: a bar until the
// collection is on the new model; Ctrl-C asks the server to cancel, and the collection keeps its model.

const OTHER = 'minilm-cls';
let server: TestServer;
let cwd = '';

/** `n` short sections, one chunk each. */
const doc = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `# Part ${i}\n\nPart ${i} of the survey notes on rivers and harbours, line ${i}.\n`,
  ).join('\n');

async function collection(name: string, sections: number) {
  const job = await finalizedJob(server, `${name}.md`, doc(sections));
  await embedAndWait(server, job.job_id, { collection_name: name });
}

const reindex = (name: string) =>
  lecternInPty(['reindex', name, '--model', OTHER, '--data-dir', server.dataDir], {
    cwd,
    env: cliEnv({ SERVICE_API_KEY: server.key }),
  });
const model = async (name: string) => json(await server.call('GET', `/collections/${name}/reindex`));

beforeAll(async () => {
  cwd = tempDir('lectern-cli-reindex-');
  await writeMiniLmFolder(join(cwd, 'cls'), { pooling: 'cls' });
  const dataDir = join(cwd, 'data');
  server = await startServerWithModel({ document_roots: [cwd] }, dataDir);
  expect((await server.call('POST', `/models/${OTHER}/import`, { json: { path: join(cwd, 'cls') } })).status).toBe(200);
}, 300_000);
afterAll(async () => server?.close());

describe('lectern reindex', () => {
  it('shows the progress until the collection is on the new model', async () => {
    await collection('notes', 40);
    const run = reindex('notes');
    expect(await run.exited).toBe(0);
    expect(run.text()).toMatch(/notes → minilm-cls/);
    expect(run.text()).toContain('✔ notes is embedded with minilm-cls');
    expect(await model('notes')).toMatchObject({ state: 'done', collection: { model: OTHER } });
  }, 300_000);

  it('Ctrl-C cancels the reindex: the collection keeps its model', async () => {
    await collection('archive', 800);
    const run = reindex('archive');
    await run.waitFor(/embedding \d+\/\d+ chunks/, { timeoutMs: 120_000 });
    run.write(KEY.ctrlC);
    expect(await run.exited).toBe(130);
    expect(run.text()).toContain('cancelling: the collection keeps its model and index');
    expect(run.text()).toContain(`cancelled: archive stays on ${TEST_MODEL}`);
    expect(await model('archive')).toMatchObject({ state: 'cancelled', collection: { model: TEST_MODEL } });
  }, 300_000);
});
