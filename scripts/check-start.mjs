// Checks what a newcomer sees after the README's install: `npm start` serves the review desk at `/` (its HTML
// and script) and the API explorer at `/docs`. CI runs it right after `bash scripts/install.sh`, before
// anything else builds, so an install that leaves the desk unbuilt fails here. Prints one line; exit 0 or 1.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const port = process.env.LECTERN_PORT ?? '8000';
const base = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), 'lectern-start-'));
const server = spawn('npm', ['start'], {
  env: { ...process.env, LECTERN_DATA_DIR: dataDir, LECTERN_PORT: port, LECTERN_WARM_UP_ROUNDS: '0' },
  stdio: ['ignore', 'ignore', 'pipe'],
  detached: true,
});
let stderr = '';
server.stderr.on('data', (d) => (stderr += d));

async function get(path) {
  const res = await fetch(base + path);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

async function check() {
  for (let tries = 0; ; tries++) {
    if (server.exitCode !== null)
      throw new Error(`npm start exited with ${server.exitCode}: ${stderr.trim().split('\n').at(-1)}`);
    try {
      await fetch(`${base}/`);
      break; // listening: any answer will do here
    } catch {
      // not listening yet
    }
    if (tries > 600) throw new Error(`npm start did not listen on ${base} within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const desk = await get('/');
  if (desk.status !== 200 || !desk.type.startsWith('text/html'))
    throw new Error(`/ answered ${desk.status} ${desk.type}: ${desk.body.slice(0, 120)}`);
  const script = /<script type="module"[^>]* src="\.?\/?(assets\/[^"]+\.js)"/.exec(desk.body)?.[1];
  if (!desk.body.includes('id="app"') || !script) throw new Error("/ is not the review desk's page");
  const js = await get(`/${script}`);
  if (js.status !== 200 || !js.type.startsWith('text/javascript'))
    throw new Error(`the desk's script ${script} answered ${js.status}`);
  const docs = await get('/docs');
  if (docs.status !== 200 || !docs.type.startsWith('text/html'))
    throw new Error(`/docs answered ${docs.status} ${docs.type}`);
}

let code = 0;
try {
  await check();
  console.log(`npm start: the desk (/) and the API explorer (/docs) answer on ${base}`);
} catch (err) {
  console.log(`npm start: ${err instanceof Error ? err.message : String(err)}`);
  code = 1;
}
try {
  process.kill(-server.pid, 'SIGTERM');
} catch {
  // already gone
}
await new Promise((r) => (server.exitCode !== null ? r() : server.once('exit', r)));
rmSync(dataDir, { recursive: true, force: true });
process.exit(code);
