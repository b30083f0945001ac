// Bundles the headless server, the CLI and the worker tasks into dist/ for plain Node.
// Packages stay external: native modules (better-sqlite3, later onnxruntime, usearch) load from node_modules.
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'server/cli/index.ts', worker: 'workers/index.ts', 'llm-host': 'server/models/llm/llm-host.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
