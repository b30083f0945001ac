import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';

// main: the Electron main process plus the Piscina worker bundle beside it (out/main/worker.js);
// preload: the few named methods the sandboxed renderer gets; renderer: the review UI.
export default defineConfig({
  main: {
    build: {
      rollupOptions: {
        input: { index: resolve('main/index.ts'), worker: resolve('workers/index.ts') },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: { input: { index: resolve('main/preload.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: 'renderer',
    build: { rollupOptions: { input: resolve('renderer/index.html') } },
  },
});
