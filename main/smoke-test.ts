/**
 * `--smoke-test`: the packaged app starts its server as it always does, checks the server answers, lets
 * the window load the desk, and exits 0, or 1 with the reason, on one line. The release workflow runs every
 * installer's app this way. Only the window part needs Electron (main/smoke-window.ts); the rest is here
 * and runs under plain Node.
 */
export const SMOKE_TEST_FLAG = '--smoke-test';

export const isSmokeTest = (argv: readonly string[]): boolean => argv.includes(SMOKE_TEST_FLAG);

/** What the smoke test needs of a running server. */
export interface SmokeServer {
  url: string;
  key: string;
  close(): Promise<void>;
}

export interface SmokeOutcome {
  code: 0 | 1;
  /** One line for the terminal: what passed, or why it failed. */
  line: string;
}

export interface SmokeSteps<S extends SmokeServer> {
  start(): Promise<S>;
  /** The window's check (the app's only): resolves with what it saw, rejects with why it failed. */
  desk?(server: S): Promise<string>;
  /** Bound of each HTTP request: a server that hangs fails the test instead of holding it forever. */
  requestTimeoutMs?: number;
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** GET with the bound; a refused or timed-out request becomes an error naming the path. */
async function get(
  base: string,
  path: string,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<Response> {
  try {
    return await fetch(new URL(path, `${base}/`), { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new Error(
      `${path} could not be reached: ${messageOf(err)}${err instanceof Error && err.cause ? ` (${messageOf(err.cause)})` : ''}`,
    );
  }
}

async function failure(path: string, res: Response): Promise<Error> {
  return new Error(`${path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
}

/** /health with the session key; answers the version the server reports. */
async function checkHealth(server: SmokeServer, timeoutMs: number): Promise<string> {
  const res = await get(server.url, '/health', timeoutMs, { 'x-api-key': server.key });
  if (res.status !== 200) throw await failure('/health', res);
  const body = (await res.json()) as { status?: unknown; version?: unknown };
  if (body.status !== 'ok' || typeof body.version !== 'string')
    throw new Error(`/health answered ${JSON.stringify(body).slice(0, 200)}`);
  return body.version;
}

/**
 * The desk's page at `/` (public, as in a browser) and the module script it names: a package that left
 * the built renderer or its assets out answers 503 or 404 here.
 */
async function checkDeskPage(server: SmokeServer, timeoutMs: number): Promise<void> {
  const res = await get(server.url, '/', timeoutMs);
  if (res.status !== 200) throw await failure('/', res);
  const html = await res.text();
  if (!res.headers.get('content-type')?.startsWith('text/html') || !html.includes('id="app"'))
    throw new Error(`/ is not the desk's page: ${html.slice(0, 200)}`);
  const tag = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]).find((t) => /\btype="module"/.test(t));
  const script = tag && /\bsrc="([^"]+)"/.exec(tag)?.[1];
  if (!script) throw new Error("/ names no module script: the desk's page is not a built one");
  const path = new URL(script, `${server.url}/`).pathname;
  const asset = await get(server.url, path, timeoutMs);
  if (asset.status !== 200 || !asset.headers.get('content-type')?.startsWith('text/javascript'))
    throw await failure(path, asset);
}

/**
 * Runs the steps in order and always closes a server it started: a run that passed but could not stop
 * its server fails too, since the app would then hang on quit.
 */
export async function runSmokeTest<S extends SmokeServer>(steps: SmokeSteps<S>): Promise<SmokeOutcome> {
  const timeoutMs = steps.requestTimeoutMs ?? 30_000;
  const fail = (reason: string): SmokeOutcome => ({ code: 1, line: oneLine(`smoke test failed: ${reason}`) });
  let server: S;
  try {
    server = await steps.start();
  } catch (err) {
    return fail(`the server did not start: ${messageOf(err)}`);
  }
  let outcome: SmokeOutcome;
  try {
    const version = await checkHealth(server, timeoutMs);
    await checkDeskPage(server, timeoutMs);
    const seen = steps.desk ? `; ${await steps.desk(server)}` : '';
    outcome = {
      code: 0,
      line: oneLine(
        `smoke test passed: Lectern ${version} at ${server.url} answered /health and served the desk${seen}`,
      ),
    };
  } catch (err) {
    outcome = fail(messageOf(err));
  }
  try {
    await server.close();
  } catch (err) {
    if (outcome.code === 0) outcome = fail(`the server did not stop: ${messageOf(err)}`);
  }
  return outcome;
}
