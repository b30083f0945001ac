import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDesktopServer, type DesktopServer } from '../../main/desktop-server.js';
import { isSmokeTest, runSmokeTest } from '../../main/smoke-test.js';
import { readDataLock } from '../../server/store/data-lock.js';
import { repoRoot, tempDir, workerFile } from '../helpers/app.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { ensureRendererBuilt } from '../ui/helpers/renderer-build.js';

// The app's own start (main/desktop-server.ts) over a scratch folder, with the settings a user could set
// in the environment: one worker thread and no warm-up, as the tests' servers run.
const env = { LECTERN_LOG_LEVEL: 'silent', LECTERN_WORKERS: '1', LECTERN_WARM_UP_ROUNDS: '0' };
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const startIn = (dataDir: string): Promise<DesktopServer> =>
  startDesktopServer({ env, cwd: dataDir, workerFile, dataDir });

const children: ChildServer[] = [];
afterEach(async () => {
  while (children.length) await children.pop()!.kill();
});

/**
 * A `start` for runSmokeTest over a fresh data folder that keeps the address the server got, so that the test can
 * check afterwards that the run stopped it; `change` alters what the smoke test is given.
 */
function trackedStart(change: (server: DesktopServer) => DesktopServer = (server) => server) {
  const dataDir = tempDir();
  const run = {
    dataDir,
    url: '',
    start: async (): Promise<DesktopServer> => {
      const server = await startIn(dataDir);
      run.url = server.url;
      return change(server);
    },
  };
  return run;
}

/** What a run left behind: its data folder let go (the server closed) and its address answering nothing. */
async function expectStopped({ dataDir, url }: { dataDir: string; url: string }): Promise<void> {
  expect(readDataLock(dataDir)).toBeNull();
  await expect(fetch(`${url}/health`)).rejects.toThrow();
}

describe('smoke test (--smoke-test), all but the window', () => {
  // The desk's page is the built renderer, served by the same server (`npm run build` makes it).
  beforeAll(() => ensureRendererBuilt());

  it('is asked for by the --smoke-test flag only', () => {
    expect(isSmokeTest(['/opt/Lectern/lectern', '--smoke-test'])).toBe(true);
    expect(isSmokeTest(['/opt/Lectern/lectern'])).toBe(false);
    expect(isSmokeTest(['/opt/Lectern/lectern', '--smoke-test=1'])).toBe(false);
  });

  it('passes when the app’s server answers /health and serves the desk, then stops it', async () => {
    const run = trackedStart();
    const outcome = await runSmokeTest({
      start: run.start,
      // The window's check runs while the server still answers, and its word ends the line.
      desk: async (server) => {
        expect((await fetch(`${server.url}/health`, { headers: { 'x-api-key': server.key } })).status).toBe(200);
        return 'the window loaded the desk';
      },
    });
    expect(outcome).toEqual({
      code: 0,
      line: `smoke test passed: Lectern ${version} at ${run.url} answered /health and served the desk; the window loaded the desk`,
    });
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expectStopped(run);
  });

  it('fails with the reason when the server cannot start: its data folder is held by another server', async () => {
    const dataDir = tempDir();
    const holder = await startChildServer({ dataDir, workers: 1 });
    children.push(holder);
    const outcome = await runSmokeTest({ start: () => startIn(dataDir) });
    expect(outcome.code).toBe(1);
    expect(outcome.line).toContain(
      `smoke test failed: the server did not start: the data folder is in use by \`lectern serve\` (pid ${holder.pid})`,
    );
    expect(outcome.line).not.toContain('\n');
  });

  it('fails when /health refuses the key, and still stops the server', async () => {
    const run = trackedStart((server) => ({ ...server, key: 'not-the-session-key' }));
    const outcome = await runSmokeTest({ start: run.start });
    expect(outcome.code).toBe(1);
    expect(outcome.line).toMatch(/^smoke test failed: \/health answered 401: \{"error":\{"code":"[A-Z_]+"/);
    expect(outcome.line).not.toContain('\n');
    await expectStopped(run);
  });

  it('fails with the window’s reason on one line, and still stops the server', async () => {
    const run = trackedStart();
    const outcome = await runSmokeTest({
      start: run.start,
      desk: async () => {
        throw new Error('the window did not load the desk: Lectern could not start:\n  the server refused the key');
      },
    });
    expect(outcome).toEqual({
      code: 1,
      line: 'smoke test failed: the window did not load the desk: Lectern could not start: the server refused the key',
    });
    await expectStopped(run);
  });

  it('fails when the server cannot be reached', async () => {
    const dataDir = tempDir();
    const server = await startIn(dataDir);
    const gone = server.url;
    await server.close();
    const outcome = await runSmokeTest({
      start: async () => ({ url: gone, key: server.key, close: async () => undefined }),
    });
    expect(outcome.code).toBe(1);
    expect(outcome.line).toMatch(
      /^smoke test failed: \/health could not be reached: fetch failed \(.*ECONNREFUSED.*\)$/,
    );
  });
});
