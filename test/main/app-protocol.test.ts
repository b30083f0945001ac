import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_INDEX, APP_ORIGIN, APP_SCHEME_PRIVILEGES, appFiles, permissionAllowed } from '../../main/app-protocol.js';
import { isSameDocument } from '../../main/url-policy.js';
import { DESKTOP_ORIGIN } from '../../server/api/plugins/cors.js';

// The handler Electron's protocol.handle('lectern', …) is given, run on real files without Electron.

const CSP = "default-src 'none'; script-src 'self'";
let root: string;
let serve: (request: Request) => Promise<Response>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'lectern-app-protocol-'));
  const renderer = join(root, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(
    join(renderer, 'index.html'),
    `<html><head><meta http-equiv="Content-Security-Policy" content="${CSP}"></head></html>`,
  );
  writeFileSync(join(renderer, 'assets', 'index-1.js'), 'export {};');
  writeFileSync(join(renderer, 'assets', 'notes.txt'), 'not an asset type');
  writeFileSync(join(root, 'secret.js'), 'outside the renderer folder');
  serve = appFiles(renderer);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the lectern://app scheme', () => {
  it('is the one origin the server gives CORS, and a standard, secure scheme', () => {
    expect(APP_ORIGIN).toBe(DESKTOP_ORIGIN);
    expect(APP_INDEX).toBe('lectern://app/index.html');
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({ standard: true, secure: true });
  });

  it('serves the page with its CSP as a header, and its assets with their types', async () => {
    const page = await serve(new Request(APP_INDEX));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CSP);
    expect((await serve(new Request(`${APP_ORIGIN}/`))).status).toBe(200);
    const script = await serve(new Request(`${APP_ORIGIN}/assets/index-1.js`));
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('export {};');
  });

  it('serves nothing outside the renderer folder, of another type, host or method', async () => {
    for (const url of [
      `${APP_ORIGIN}/../secret.js`,
      `${APP_ORIGIN}/%2e%2e/secret.js`,
      `${APP_ORIGIN}/assets/..%2f..%2fsecret.js`,
      `${APP_ORIGIN}/assets/notes.txt`,
      `${APP_ORIGIN}/assets/missing.js`,
      `${APP_ORIGIN}/assets/%E0%A4%A.js`,
      'lectern://evil/index.html',
      'https://app/index.html',
    ]) {
      expect((await serve(new Request(url))).status, url).toBe(404);
    }
    expect((await serve(new Request(APP_INDEX, { method: 'POST', body: 'x' }))).status).toBe(404);
  });

  it("gives the window one permission, reaching the local server, and only to the app's own page", () => {
    for (const permission of ['local-network-access', 'loopback-network', 'local-network']) {
      expect(permissionAllowed(permission, `${APP_INDEX}#/jobs`)).toBe(true);
      expect(permissionAllowed(permission, APP_ORIGIN)).toBe(true);
      for (const other of [
        'https://evil.example/',
        'file:///app/index.html',
        'null',
        'lectern://evil/index.html',
        'not a url',
      ])
        expect(permissionAllowed(permission, other), other).toBe(false);
    }
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'unknown'])
      expect(permissionAllowed(permission, APP_INDEX), permission).toBe(false);
  });

  it('keeps hash navigation on the page (the window blocks any other navigation)', () => {
    expect(isSameDocument(`${APP_INDEX}#/library`, `${APP_INDEX}#/jobs/1/review`)).toBe(true);
    expect(isSameDocument(APP_INDEX, `${APP_ORIGIN}/assets/index-1.js`)).toBe(false);
  });
});
