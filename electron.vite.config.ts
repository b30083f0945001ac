import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';

// main: the Electron main process plus the Piscina worker bundle beside it (out/main/worker.js) and the
// llama host process the server forks for local chat (out/main/llm-host.js) with the probe it forks to load
// an imported GGUF once (out/main/gguf-probe.js), and the one that runs an imported ONNX embedding model once
// (out/main/onnx-probe.js);
// preload: the few named methods the sandboxed renderer gets; renderer: the review UI.
export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: {
          index: resolve('main/index.ts'),
          worker: resolve('workers/index.ts'),
          'llm-host': resolve('server/models/llm/llm-host.ts'),
          'gguf-probe': resolve('server/models/llm/gguf-probe.ts'),
          'onnx-probe': resolve('server/models/custom/onnx-probe.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve('main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    build: { rollupOptions: { input: resolve('renderer/index.html') } },
  },
});
