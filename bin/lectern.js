#!/usr/bin/env -S node --v8-pool-size=1
// --v8-pool-size=1: one V8 background thread instead of Node's four. The server's two worker threads read
// documents on the machine's cores; four more threads compiling and collecting beside them took 10-20% more
// CPU over documents' first readings (a scratch measure) and ~6% of bench:ingest's time over six alternate
// runs (bench/HISTORY.md, ingest, 2026-11-25).
// Node reads the flag only as it starts: `npm start` passes it too, and bench/lib/server.ts takes it from
// this line.
// The CLI runs from the bundle that `npm install` (prepare) or `npm run build:node` writes to dist/.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('lectern: dist/cli.js is missing; run `npm run build:node` first\n');
  process.exit(1);
}
await import(cli.href);
