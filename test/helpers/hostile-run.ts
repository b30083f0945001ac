/**
 * Runs hostile documents against a child server (test/helpers/child-server.ts): the file alone, then two
 * copies at once, each time checking that every job failed with the expected code, that the process stayed
 * under MAX_RSS_MB resident and that /health answered throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir } from './app.js';
import { startChildServer, type ChildServer } from './child-server.js';

export const MAX_RSS_MB = 1500;

export interface HostileCase {
  name: string;
  file: string;
  make: () => Uint8Array;
  code: string;
  message?: RegExp;
}

/** Asks /health every 200 ms until stopped; every answer must be a 200 within 5 s. */
function watchHealth(server: ChildServer) {
  const problems: string[] = [];
  let answered = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const res = await fetch(`${server.url}/health`, {
          headers: { 'x-api-key': server.key },
          signal: AbortSignal.timeout(5000),
        });
        await res.arrayBuffer();
        if (res.status === 200) answered++;
        else problems.push(`status ${res.status}`);
      } catch (err) {
        problems.push(String(err));
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { answered, problems };
  };
}

/** A server found gone fails the test with how it ended, not with the next request's refusal. */
function throwIfDied(server: ChildServer): void {
  const died = server.deathNote();
  if (died) throw new Error(died);
}

/** Uploads the file `copies` times at once and waits for every job; returns them and the peak RSS. */
async function run(server: ChildServer, c: HostileCase, copies: number) {
  const data = c.make();
  throwIfDied(server);
  server.resetPeak();
  const stopHealth = watchHealth(server);
  const ids: string[] = [];
  for (let i = 0; i < copies; i++) {
    const res = await server.upload(c.file, data);
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { job_id: string }).job_id);
  }
  const jobs = await Promise.all(
    ids.map((id) => server.waitFor(id, ['ready_for_review', 'failed', 'cancelled'], 150_000)),
  );
  return { jobs, peak: server.peakRssMb(), health: await stopHealth() };
}

/** The case alone, then two at once; returns the peak RSS of each run (MB). */
export async function expectContained(server: ChildServer, c: HostileCase): Promise<number[]> {
  const peaks: number[] = [];
  for (const copies of [1, 2]) {
    const { jobs, peak, health } = await run(server, c, copies);
    for (const job of jobs) {
      expect(job.status, JSON.stringify(job.error)).toBe('failed');
      expect(job.error.code).toBe(c.code);
      if (c.message) expect(job.error.message).toMatch(c.message);
    }
    console.log(
      `${c.file} x${copies}: ${jobs[0]?.error?.code}, peak RSS ${Math.round(peak)} MB, /health answered ${health.answered} times`,
    );
    expect(peak).toBeLessThan(MAX_RSS_MB);
    expect(health.problems).toEqual([]);
    expect(health.answered).toBeGreaterThan(0);
    peaks.push(peak);
  }
  return peaks;
}

/** One child server at the default limits for the describe block this is called in; returns its getter. */
export function useChildServer(): () => ChildServer {
  let server: ChildServer;
  beforeAll(async () => {
    server = await startChildServer();
  });
  afterAll(async () => {
    await server.kill('SIGKILL');
    removeDir(server.dataDir);
  });
  return () => server;
}

/** A harmless document the server, after the hostile ones, must still read. */
export async function expectStillReads(server: ChildServer, file: string, text: string): Promise<void> {
  throwIfDied(server);
  const res = await server.upload(file, new TextEncoder().encode(text));
  const job = await server.waitFor(((await res.json()) as { job_id: string }).job_id);
  expect(job.status).toBe('ready_for_review');
}

/**
 * One child server at the default limits for a list of hostile cases, each alone and two at once, then a
 * harmless document (`after`) that the same server must still read.
 */
export function describeHostile(
  title: string,
  cases: HostileCase[],
  after: { name: string; file: string; text: string },
): void {
  describe(title, () => {
    const server = useChildServer();
    for (const c of cases) {
      it(`${c.name}: a failed job with ${c.code}, alone and two at once, under ${MAX_RSS_MB} MB`, async () => {
        await expectContained(server(), c);
      });
    }

    it(after.name, async () => {
      await expectStillReads(server(), after.file, after.text);
    });
  });
}
