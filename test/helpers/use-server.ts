import { afterAll, beforeAll } from 'vitest';
import { startServer, type TestServer } from './app.js';

/**
 * A test file's server, started before its tests (by `start`: startServer() unless the file needs settings of its
 * own) and closed after them. The object stands for the running server, so tests and helpers use it as the server
 * itself; used before the beforeAll started it, it throws instead of answering undefined.
 */
export function useServer(start: () => Promise<TestServer> = () => startServer()): TestServer {
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(async () => {
    await running?.close();
  });
  const live = (): TestServer => {
    if (!running) throw new Error("the test file's server is used before its beforeAll started it");
    return running;
  };
  return {
    get app() {
      return live().app;
    },
    get url() {
      return live().url;
    },
    get key() {
      return live().key;
    },
    get dataDir() {
      return live().dataDir;
    },
    call: (...args) => live().call(...args),
    upload: (...args) => live().upload(...args),
    waitFor: (...args) => live().waitFor(...args),
    close: () => live().close(),
  };
}
