/**
 * A local server that speaks the npm registry's protocol for `@tesseract.js-data/<code>` (a version's
 * manifest with `dist.tarball` and `dist.integrity`, then the tarball), serving package tarballs packed
 * here from the copies npm installed as dev dependencies: `lectern languages add` is tested against it
 * as against registry.npmjs.org, offline and fast.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot, tempDir } from './app.js';
import { listenOnLoopback, type LoopbackServer } from './loopback-server.js';

/** `npm pack`'s layout (everything under `package/`) of an installed data package, LSTM model only. */
function packLanguage(code: string): Buffer {
  const dir = join(repoRoot, 'node_modules', '@tesseract.js-data', code);
  const out = join(tempDir('lectern-pack-'), `${code}-1.0.0.tgz`);
  execFileSync('tar', ['czf', out, '--transform', 's,^,package/,', '-C', dir, 'package.json', '4.0.0_best_int']);
  return readFileSync(out);
}

export interface NpmRegistry extends LoopbackServer {
  /** Requests received, as `METHOD path`. */
  requests: string[];
  /** host:port, for allowed_private_hosts. */
  host: string;
  /** Resolves once a tarball has been asked for. */
  tarballAsked: Promise<void>;
  /** With `hold`: sends the tarballs held so far, and every later one at once. */
  release(): void;
}

/**
 * `corrupt`: the tarball served differs by one byte from the one the manifest's integrity names. `hold`: a
 * tarball's answer waits for `release()`, so a command fetching it is provably still running meanwhile.
 */
export async function startNpmRegistry(
  codes: string[],
  opts: { corrupt?: boolean; hold?: boolean } = {},
): Promise<NpmRegistry> {
  const tarballs = new Map(codes.map((c) => [c, packLanguage(c)]));
  const requests: string[] = [];
  let asked!: () => void;
  const tarballAsked = new Promise<void>((ok) => (asked = ok));
  let release = () => {};
  const released = opts.hold ? new Promise<void>((ok) => (release = ok)) : Promise.resolve();
  let base = '';
  const server = await listenOnLoopback((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const manifest = /^\/@tesseract\.js-data%2[fF]([a-z_]+)\/([0-9.]+)$/.exec(req.url ?? '');
    const tarball = /^\/@tesseract\.js-data\/([a-z_]+)\/-\/[a-z_]+-([0-9.]+)\.tgz$/.exec(req.url ?? '');
    const code = manifest?.[1] ?? tarball?.[1] ?? '';
    const tgz = tarballs.get(code);
    if (!tgz || (manifest?.[2] ?? tarball?.[2]) !== '1.0.0') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      return;
    }
    if (manifest) {
      const integrity = `sha512-${createHash('sha512').update(tgz).digest('base64')}`;
      const body = {
        name: `@tesseract.js-data/${code}`,
        version: '1.0.0',
        dist: { tarball: `${base}/@tesseract.js-data/${code}/-/${code}-1.0.0.tgz`, integrity },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    const served = Buffer.from(tgz);
    if (opts.corrupt) served[served.length - 100] = (served[served.length - 100] as number) ^ 0xff;
    asked();
    void released.then(() =>
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': served.length }).end(served),
    );
  });
  base = server.url;
  return { ...server, requests, host: new URL(server.url).host, tarballAsked, release: () => release() };
}
