// Bundles the headless server, the CLI and the worker tasks into dist/ for plain Node.
// Packages stay external: native modules (better-sqlite3, later onnxruntime, usearch) load from node_modules.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

const result = await build({
  entryPoints: {
    cli: 'server/cli/index.ts',
    worker: 'workers/index.ts',
    'llm-host': 'server/models/llm/llm-host.ts',
    'gguf-probe': 'server/models/llm/gguf-probe.ts',
    'onnx-probe': 'server/models/custom/onnx-probe.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  // Code only some commands need (the whole server, for one) goes in chunks loaded on first use, so
  // `lectern --help`, `init` and commands that talk to a running server start fast. Chunks stay in
  // dist/ itself: modules find worker.js, llm-host.js and the probes next to them.
  splitting: true,
  metafile: true,
  sourcemap: true,
  logLevel: 'warning',
});

// Chunks are named by their content, so each change leaves the old ones behind. Those an hour old and no
// longer part of the build go; younger ones may still be loaded by a command that started before it.
const current = new Set(Object.keys(result.metafile.outputs).map((p) => basename(p)));
const anHourAgo = Date.now() - 3600_000;
for (const name of readdirSync('dist')) {
  const path = join('dist', name);
  if (/^(app|chunk)-[A-Z0-9]{8}\.js(\.map)?$/.test(name) && !current.has(name) && statSync(path).mtimeMs < anHourAgo)
    rmSync(path, { force: true });
}
