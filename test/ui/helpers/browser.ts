import { chromium, type Browser, type Page } from 'playwright-core';
import { recordRequests } from './screens.js';

/** Debian's chromium with the flags that keep it offline and quiet on these machines. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** Collects what the page logs and throws, so a failing test says why the UI broke. */
export function watchConsole(page: Page): string[] {
  const lines: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') lines.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  return lines;
}

/** Opens the desk and gives it the server's key, as a person does once per tab; resolves on the library. */
export async function signIn(page: Page, server: { url: string; key: string }): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.fill('input[name=api-key]', server.key);
  await page.click('.key-form button[type=submit]');
  await page.waitForSelector('section.library');
}

export type PageOptions = NonNullable<Parameters<Browser['newPage']>[0]>;

/** A tab with what it logged and every URL it asked for. */
export interface WatchedTab {
  page: Page;
  logs: string[];
  requests: string[];
}

/** A new tab of the usual window size (unless `options` say otherwise), its console and requests watched. */
export async function watchedTab(browser: Browser, options: PageOptions = {}): Promise<WatchedTab> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, ...options });
  return { page, logs: watchConsole(page), requests: recordRequests(page) };
}

/** Such a watched tab, signed in. */
export async function deskPage(
  browser: Browser,
  server: { url: string; key: string },
  options: PageOptions = {},
): Promise<WatchedTab> {
  const tab = await watchedTab(browser, options);
  await signIn(tab.page, server);
  return tab;
}

/** Chromium with one such signed-in tab, for a test file that drives the desk in a single tab. */
export async function deskSession(
  server: { url: string; key: string },
  options: PageOptions = {},
): Promise<{ browser: Browser; page: Page; logs: string[]; requests: string[] }> {
  const browser = await launchChromium();
  try {
    return { browser, ...(await deskPage(browser, server, options)) };
  } catch (err) {
    // The test file never gets the browser to close when its sign-in fails.
    await browser.close();
    throw err;
  }
}
