import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { APP_ORIGIN, appFiles } from '../../main/app-protocol.js';
import { cspOf } from '../../server/api/routes/ui.js';
import { fixturesDir, ingest, listPage, startServer } from '../helpers/app.js';
import { watchConsole } from './helpers/browser.js';
import { useDeskBrowser } from './helpers/desk.js';
import { rendererOut } from './helpers/renderer-build.js';
import { recordRequests, screenshotDir, shot } from './helpers/screens.js';

// The built renderer loaded the way Electron's window loads it: every file from the `lectern://app` scheme's
// handler (main/app-protocol.ts), with the preload's bridge (main/preload.ts) present as `window.lectern`.
// Only Electron can register that scheme with Chromium, so here the same handler answers for a stand-in
// origin, and the server gives CORS to that origin as it gives it to lectern://app in the app.

const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self' http://127.0.0.1:*; font-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'";

const shots = screenshotDir('desktop');
let context: BrowserContext;
let page: Page;
let requests: string[];
let logs: string[];
/** Requests that reached the network layer for a host other than the local server (aborted there). */
const tripwire: string[] = [];
let jobId = '';
const WINDOW_ORIGIN = 'http://lectern-window.localhost';
const indexUrl = `${WINDOW_ORIGIN}/index.html`;
const appFile = appFiles(rendererOut);

const desk = useDeskBrowser({
  start: () => startServer({ desktopOrigin: WINDOW_ORIGIN }),
  seed: async (server) => {
    jobId = (
      await ingest(server, 'survival-tiedtimes.pdf', readFileSync(join(fixturesDir, 'pdfs', 'survival-tiedtimes.pdf')))
    ).job_id;
  },
});

beforeAll(async () => {
  context = await desk.browser.newContext({ viewport: { width: 1280, height: 800 } });
  // What the window's permission handler gives the app's page alone (main/app-protocol.ts permissionAllowed):
  // a page without an address of its own reaches 127.0.0.1 only with Local Network Access.
  await context.grantPermissions(['local-network-access'], { origin: WINDOW_ORIGIN });
  // What contextBridge.exposeInMainWorld gives the page: a frozen object of the preload's named methods.
  await context.addInitScript(
    ({ url, key }) => {
      const saved: string[] = [];
      Object.defineProperty(window, 'lectern', {
        value: Object.freeze({
          server: async () => ({ url, key }),
          // The native dialog's answer: the main process read the picked file for the sandboxed page.
          openFiles: async () => [
            { name: 'picked.md', data: new TextEncoder().encode('# Picked\n\nChosen in the native file dialog.\n') },
          ],
          saveExport: async (jobId: string) => {
            saved.push(jobId);
            return `/home/user/Downloads/${jobId}.zip`;
          },
          revealFile: async () => undefined,
        }),
      });
    },
    { url: desk.server.url, key: desk.server.key },
  );
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${WINDOW_ORIGIN}/`)) {
      const answer = await appFile(
        new Request(APP_ORIGIN + url.slice(WINDOW_ORIGIN.length), { method: route.request().method() }),
      );
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => (headers[name] = value));
      return route.fulfill({ status: answer.status, headers, body: Buffer.from(await answer.arrayBuffer()) });
    }
    if (url.startsWith(`${desk.server.url}/`)) return route.continue();
    tripwire.push(url);
    return route.abort();
  });
  page = await context.newPage();
  requests = recordRequests(page);
  logs = watchConsole(page);
});

describe('the renderer as the desktop window loads it', () => {
  it('starts from the app scheme with the key from the bridge, without asking for it', async () => {
    await page.goto(indexUrl);
    await page.waitForSelector(`table.jobs tr[data-job="${jobId}"]`);
    expect(await page.locator('.key-form').count()).toBe(0);
    await shot(page, shots, '1-library');
  });

  it('uploads what the native file dialog picked', async () => {
    await page.click('section.library button.primary');
    await page.waitForSelector('.upload-log li.ok');
    await page.waitForSelector('tr[data-job]:has-text("picked.md")');
  });

  it('reviews through the local server across origins (CORS for the desktop window only)', async () => {
    await page.click(`tr[data-job="${jobId}"] a.button`);
    await page.waitForSelector('.review[data-loaded=true]');
    await page.keyboard.press('a');
    await expect
      .poll(async () => (await listPage(desk.server, `/jobs/${jobId}/blocks?limit=1`)).items[0]?.status)
      .toBe('approved');
    await shot(page, shots, '2-review');
  });

  it('declares a strict CSP, the same one the server sends with the page', async () => {
    const meta = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
    expect(meta).toBe(EXPECTED_CSP);
    expect(cspOf(readFileSync(join(rendererOut, 'index.html'), 'utf8'))).toBe(EXPECTED_CSP);
    const served = await fetch(`${desk.server.url}/`);
    expect(served.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
  });

  it('blocks inline scripts, foreign connections and foreign images', async () => {
    const before = requests.length;
    const outcome = await page.evaluate(async () => {
      const violations: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
      const s = document.createElement('script');
      s.textContent = 'window.inlineRan = true';
      document.body.appendChild(s);
      const fetched = await fetch('http://example.org/').then(
        () => 'reached',
        () => 'blocked',
      );
      const img = document.createElement('img');
      const imgResult = new Promise<string>((resolve) => {
        img.onload = () => resolve('loaded');
        img.onerror = () => resolve('blocked');
      });
      img.src = 'http://example.org/pixel.png';
      document.body.appendChild(img);
      const image = await imgResult;
      await new Promise((r) => setTimeout(r, 50));
      return {
        inlineRan: (window as unknown as { inlineRan?: boolean }).inlineRan === true,
        fetched,
        image,
        violations,
      };
    });
    expect(outcome.inlineRan).toBe(false);
    expect(outcome.fetched).toBe('blocked');
    expect(outcome.image).toBe('blocked');
    expect(outcome.violations).toEqual(expect.arrayContaining(['script-src-elem', 'connect-src', 'img-src']));
    // The probes are this test's own; the policy stopped them before the network (see the tripwire below).
    requests.splice(before);
  });

  it('cannot talk to the API from a web origin or a file page ("null"): CORS answers only the window\'s origin', async () => {
    const preflight = (origin: string) =>
      fetch(`${desk.server.url}/jobs`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
      });
    for (const origin of ['https://evil.example', 'null', 'file://'])
      expect((await preflight(origin)).headers.get('access-control-allow-origin'), origin).toBeNull();
    const fromWindow = await preflight(WINDOW_ORIGIN);
    expect(fromWindow.status).toBe(204);
    expect(fromWindow.headers.get('access-control-allow-origin')).toBe(WINDOW_ORIGIN);
    expect(fromWindow.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });

  it('saves the export through the bridge in the desktop app', async () => {
    const finalized = await desk.server.call('POST', `/jobs/${jobId}/finalize`, {
      json: { finalize_policy: 'auto_approve_pending' },
    });
    expect(finalized.status).toBe(200);
    // Through another screen first: if the finalize screen was already showing, it re-reads the job.
    await page.evaluate((id) => {
      location.hash = `#/jobs/${id}/chunks`;
    }, jobId);
    await page.click('nav.tabs a[href$="/finalize"]');
    await page.waitForSelector('.finalize[data-status=finalized]');
    await page.click('button.export-button');
    await expect.poll(() => page.textContent('.export-result')).toContain(`/home/user/Downloads/${jobId}.zip`);
    expect(await page.locator('.export-result button', { hasText: 'Show in folder' }).count()).toBe(1);
    await shot(page, shots, '3-export');
  });

  it('made no request outside the app files and the local server', () => {
    expect(tripwire).toEqual([]);
    const outside = requests.filter(
      (u) =>
        !u.startsWith(`${WINDOW_ORIGIN}/`) &&
        !u.startsWith(`${desk.server.url}/`) &&
        !u.startsWith('blob:') &&
        !u.startsWith('data:'),
    );
    expect(outside).toEqual([]);
    for (const u of requests.filter((r) => r.startsWith('http') && !r.startsWith(`${WINDOW_ORIGIN}/`)))
      expect(new URL(u).hostname).toBe('127.0.0.1');
    expect(requests.some((u) => u.startsWith(`${desk.server.url}/jobs/${jobId}/blocks`))).toBe(true);
    expect(logs.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});
