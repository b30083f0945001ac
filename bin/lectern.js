#!/usr/bin/env node
// The CLI runs from the bundle that `npm install` (prepare) or `npm run build:node` writes to dist/.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('lectern: dist/cli.js is missing; run `npm run build:node` first\n');
  process.exit(1);
}
await import(cli.href);
