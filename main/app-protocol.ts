import { readFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { cspOf, MIME as ASSET_TYPES } from '../server/api/routes/ui.js';
import { DESKTOP_ORIGIN } from '../server/api/plugins/cors.js';

/**
 * The desktop window loads the review UI from `lectern://app/` instead of a file URL. A file page's origin
 * is "null", which any sandboxed iframe or data: page on the web also has, so the server could not give
 * CORS to the window without giving it to them; `lectern://app` is an origin only this app's window has.
 */
export const APP_SCHEME = 'lectern';
export const APP_ORIGIN = DESKTOP_ORIGIN;
export const APP_INDEX = `${APP_ORIGIN}/index.html`;

/**
 * For `protocol.registerSchemesAsPrivileged` before the app is ready: a standard scheme (real origin,
 * relative URLs), secure (like https, so the CSP's 'self' and module scripts work), and fetchable.
 */
export const APP_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  corsEnabled: true,
} as const;

/**
 * Chromium's names for reaching loopback and local addresses (Local Network Access). A page without an IP
 * address of its own, as one from a custom scheme, counts as public, so its requests to the app's server on
 * 127.0.0.1 need this permission; a file page never did. Electron 41's typings do not name it yet.
 */
const LOCAL_NETWORK_PERMISSIONS = new Set(['local-network-access', 'loopback-network', 'local-network']);

/**
 * The only permission the window gets: reaching the local server, asked by the app's own page. Everything
 * else (camera, notifications, geolocation…) is never needed by the review desk.
 */
export function permissionAllowed(permission: string, requestingUrl: string): boolean {
  if (!LOCAL_NETWORK_PERMISSIONS.has(permission)) return false;
  return originOf(requestingUrl) === APP_ORIGIN;
}

/** scheme://host of a URL. Node's URL calls the origin of a scheme it does not know "null", lectern: among them. */
function originOf(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}`;
  } catch {
    return undefined;
  }
}

/** The server's asset types (server/api/routes/ui.ts), and the page itself. */
const MIME: Record<string, string> = { '.html': 'text/html; charset=utf-8', ...ASSET_TYPES };

const notFound = (): Response =>
  new Response('not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });

/**
 * The handler `protocol.handle(APP_SCHEME, …)` is given: GET of a file of the built renderer folder, by
 * path; anything else (another host, a path leaving the folder, an unknown type) is a 404. Plain web
 * Request/Response, so it runs (and is tested) without Electron.
 */
export function appFiles(rendererDir: string): (request: Request) => Promise<Response> {
  const root = resolve(rendererDir);
  return async (request) => {
    if (originOf(request.url) !== APP_ORIGIN || request.method !== 'GET') return notFound();
    const url = new URL(request.url);
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return notFound();
    }
    const file = resolve(join(root, path === '/' ? 'index.html' : path));
    const type = MIME[extname(file)];
    if (!file.startsWith(root + sep) || !type || path.includes('\0')) return notFound();
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch {
      return notFound();
    }
    const headers: Record<string, string> = { 'content-type': type, 'x-content-type-options': 'nosniff' };
    // The page's own CSP, also as a header, as the server sends it with the page.
    const csp = type.startsWith('text/html') ? cspOf(data.toString('utf8')) : undefined;
    if (csp) headers['content-security-policy'] = csp;
    return new Response(new Uint8Array(data), { status: 200, headers });
  };
}
