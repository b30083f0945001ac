import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { deskPage, launchChromium, type PageOptions, type WatchedTab, watchedTab } from './browser.js';
import { ensureRendererBuilt } from './renderer-build.js';

/** What a desk test file has once its beforeAll ran: the real server and the chromium driving its desk. */
export interface DeskBrowser {
  readonly server: TestServer;
  readonly browser: Browser;
}

/** The same with the one tab a file drives its desk in, what that tab logged and every URL it asked for. */
export interface Desk extends DeskBrowser {
  readonly page: Page;
  readonly logs: string[];
  readonly requests: string[];
}

export interface DeskSetup {
  /** The server the desk talks to; `startServer()` when the file needs no settings of its own. */
  start?: () => Promise<TestServer>;
  /** What the tests expect on the server before the browser opens (uploads, bots); the server closes if it throws. */
  seed?: (server: TestServer) => Promise<void>;
  /** The bound on the beforeAll that starts and seeds the server: ingesting whole PDFs takes longer than a hook's default. */
  timeout?: number;
}

// Fields are filled by a beforeAll: read at a file's top level they would be undefined, and the test would fail
// far from the cause.
function opened<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`the desk's ${name} is read before its beforeAll opened it`);
  return value;
}

/**
 * Registers the hooks of a test file that opens its own tabs: before the tests, the renderer is built when stale,
 * the server starts and is seeded, then chromium launches; after them, both close (the browser first, whose tabs
 * still talk to the server).
 */
export function useDeskBrowser(setup: DeskSetup = {}): DeskBrowser {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    ensureRendererBuilt();
    server = await (setup.start ?? startServer)();
    await setup.seed?.(server);
    browser = await launchChromium();
  }, setup.timeout);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      return opened(server, 'server');
    },
    get browser() {
      return opened(browser, 'browser');
    },
  };
}

/**
 * The same for a test file that drives the desk in a single tab, of the usual window size unless `page` says
 * otherwise; the tab is signed in unless `signIn` is false (for a file that tests the key form itself).
 */
export function useDesk(setup: DeskSetup & { page?: PageOptions; signIn?: boolean } = {}): Desk {
  const desk = useDeskBrowser(setup);
  let tab: WatchedTab | undefined;
  beforeAll(async () => {
    tab =
      setup.signIn === false
        ? await watchedTab(desk.browser, setup.page)
        : await deskPage(desk.browser, desk.server, setup.page);
  });
  return {
    get server() {
      return desk.server;
    },
    get browser() {
      return desk.browser;
    },
    get page() {
      return opened(tab, 'page').page;
    },
    get logs() {
      return opened(tab, 'page').logs;
    },
    get requests() {
      return opened(tab, 'page').requests;
    },
  };
}
