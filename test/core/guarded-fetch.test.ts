import { lookup } from 'node:dns/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedAddressReason } from '../../server/core/net/address-policy.js';
import { createGuardedFetch } from '../../server/core/net/guarded-fetch.js';
import type { GuardedFetch, NetPolicy } from '../../server/core/net/types.js';
import { listenOnLoopback, type LoopbackServer } from '../helpers/loopback-server.js';

/** What the allowed server saw of each request. */
const seen: { path: string; method: string; headers: Record<string, string | string[] | undefined>; body: string }[] =
  [];
/** Lets the streaming route send its second part. */
let releaseSecondPart: () => void = () => {};
let allowed: LoopbackServer;
let other: LoopbackServer;
let denied: LoopbackServer;
let net: GuardedFetch;
let policy: NetPolicy;
const port = (s: LoopbackServer) => Number(new URL(s.url).port);
/** This machine's name resolves (through /etc/hosts) to a loopback or private address on most systems. */
const ownName = hostname();
const ownAddresses = await lookup(ownName, { all: true }).catch(() => []);

function route(res: ServerResponse, path: string, target: { other: string; denied: string }): void {
  const redirect = (status: number, location: string): void => void res.writeHead(status, { location }).end();
  const loop = /^\/loop\/(\d+)$/.exec(path);
  if (path === '/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  if (path === '/echo') return void res.writeHead(200).end(JSON.stringify(seen.at(-1)));
  if (path === '/fail') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('SECRET-INTERNAL-DETAIL');
  if (path === '/not-json') return void res.writeHead(200).end('SECRET-INTERNAL-DETAIL is not json');
  if (path === '/stream') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first part\n');
    releaseSecondPart = () => res.end('second part\n');
    return;
  }
  if (path === '/silent') return; // never answers
  if (path === '/stall') return void res.writeHead(200).write('a beginning, then nothing');
  if (path === '/big') return void res.writeHead(200, { 'content-length': 4096 }).end(Buffer.alloc(4096, 97));
  if (path === '/big-chunked') {
    res.writeHead(200);
    for (let i = 0; i < 8; i++) res.write(Buffer.alloc(1024, 98));
    return void res.end();
  }
  if (path === '/to-denied') return redirect(302, `${target.denied}/x`);
  if (path === '/to-denied-name') return redirect(302, `http://localhost:${new URL(target.denied).port}/x`);
  if (path === '/to-metadata') return redirect(307, 'http://169.254.169.254/latest/meta-data/');
  if (path === '/to-file') return redirect(302, 'file:///etc/passwd');
  if (path === '/to-other') return redirect(307, `${target.other}/echo`);
  if (path === '/to-echo') return redirect(307, '/echo');
  if (path === '/see-other') return redirect(303, '/echo');
  if (path === '/found') return redirect(302, '/echo');
  if (loop) return redirect(302, `/loop/${Number(loop[1]) + 1}`);
  res.writeHead(404).end();
}

function recorder(target: () => { other: string; denied: string }) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (part) => (body += String(part)));
    req.on('end', () => {
      const path = req.url ?? '';
      seen.push({ path, method: req.method ?? '', headers: req.headers, body });
      route(res, path, target());
    });
  };
}

beforeAll(async () => {
  const targets = () => ({ other: other.url, denied: denied.url });
  allowed = await listenOnLoopback(recorder(targets));
  other = await listenOnLoopback(recorder(targets));
  denied = await listenOnLoopback((_req, res) => res.writeHead(200).end('reached'));
  policy = {
    allowedPrivateHosts: [new URL(allowed.url).host, new URL(other.url).host],
    connectTimeoutMs: 2000,
    totalTimeoutMs: 2000,
    maxBytes: 2048,
    maxRedirects: 3,
  };
  net = createGuardedFetch(policy);
});
afterAll(async () => {
  await allowed.close();
  await other.close();
  await denied.close();
});

/** The error's code, or `AbortError` for an abort (a DOMException, whose legacy numeric `code` says nothing). */
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: { code?: unknown; name?: string }) => (e.name === 'AbortError' ? e.name : e.code),
  );

describe('guarded fetch: allowed hosts', () => {
  it('GETs and POSTs to an allowed host:port, returning what it answered', async () => {
    const res = await net(`${allowed.url}/json`);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${allowed.url}/json`);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ ok: true });

    const post = await net(`${allowed.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Thing': 'one' },
      body: '{"a":1}',
    });
    const echoed = (await post.json()) as { method: string; body: string; headers: Record<string, string> };
    expect(echoed).toMatchObject({
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json', 'x-thing': 'one' },
    });
  });

  it('streams the body as it comes', async () => {
    const res = await net(`${allowed.url}/stream`);
    const reader = res.body!.getReader();
    const first = await reader.read();
    // The server has not sent its second part yet: the first arrived on its own.
    expect(new TextDecoder().decode(first.value)).toBe('first part\n');
    releaseSecondPart();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('second part\n');
  });

  it('returns an error status as a response; nothing it sent appears in an error', async () => {
    const res = await net(`${allowed.url}/fail`);
    expect(res.status).toBe(500);
    const notJson = await net(`${allowed.url}/not-json`)
      .then((r) => r.json())
      .catch((e: Error & { code: string }) => e);
    expect(notJson).toMatchObject({ code: 'FETCH_FAILED' });
    expect((notJson as Error).message).not.toContain('SECRET');
  });

  it('a name in the list connects to the address it resolved to (localhost via /etc/hosts)', async () => {
    const byName = createGuardedFetch({ ...policy, allowedPrivateHosts: [`localhost:${port(allowed)}`] });
    expect((await byName(`http://localhost:${port(allowed)}/json`)).status).toBe(200);
    // The same address under its number is another entry, not allowed by the name.
    expect(await code(byName(`${allowed.url}/json`))).toBe('URL_NOT_ALLOWED');
  });
});

describe('guarded fetch: refused before anything is sent', () => {
  // Each names the listening `denied` server's port where a port matters, so a leak would show as a connection.
  const spellings = (p: number) => [
    `http://127.0.0.1:${p}/`,
    `http://127.1:${p}/`,
    `http://2130706433:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://017700000001:${p}/`,
    `http://0x7f.1:${p}/`,
    `http://127.0.0.1.:${p}/`,
    `http://127.255.255.254:${p}/`,
    `https://127.0.0.1:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://[::127.0.0.1]:${p}/`,
    `http://[64:ff9b::127.0.0.1]:${p}/`,
    `http://[64:ff9b:1::1]:${p}/`,
    `http://[2002:7f00:1::]:${p}/`,
    `http://[::ffff:0:127.0.0.1]:${p}/`,
    `http://[::1]:${p}/`,
    `http://[::]:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://0:${p}/`,
    `http://localhost:${p}/`,
    `http://localhost.:${p}/`,
    `http://LocalHost:${p}/`,
    `http://api.localhost:${p}/`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00:ec2::254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://metadata.google.internal./',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://240.0.0.1/',
    'http://192.0.2.1/',
    'http://198.18.0.1/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[ff02::1]/',
    'http://[fec0::1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
  ];

  it('every spelling of a loopback, private, link-local, CGNAT, multicast, reserved or metadata address, and nothing reaches the server', async () => {
    for (const url of spellings(port(denied))) {
      expect(await code(net(url)), url).toBe('URL_NOT_ALLOWED');
    }
    expect(denied.connections()).toBe(0);
  });

  it('403 with a message naming the setting; a public address passes the check', async () => {
    const err = await net(`http://127.1:${port(denied)}/`).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'URL_NOT_ALLOWED', status: 403 });
    expect((err as Error).message).toContain('allowed_private_hosts');
    for (const ok of [
      '93.184.216.34',
      '2606:2800:220:1:248:1893:25c8:1946',
      '::ffff:93.184.216.34',
      '64:ff9b::5db8:d822',
    ])
      expect(refusedAddressReason(ok), ok).toBeNull();
  });

  it.skipIf(!ownAddresses.some((a) => refusedAddressReason(a.address)))(
    `a name resolving to a private address (${ownName}) is refused at the lookup`,
    async () => {
      expect(await code(net(`http://${ownName}:${port(denied)}/`))).toBe('URL_NOT_ALLOWED');
      expect(denied.connections()).toBe(0);
    },
  );

  it('anything but plain http(s) is 400 URL_INVALID', async () => {
    for (const url of [
      'not a url',
      'ftp://example.org/x',
      'file:///etc/passwd',
      'data:text/plain,hi',
      'javascript:alert(1)',
      `http://user:pw@${new URL(allowed.url).host}/json`,
      `http://user@${new URL(allowed.url).host}/json`,
    ]) {
      const err = await net(url).catch((e: unknown) => e);
      expect(err, url).toMatchObject({ code: 'URL_INVALID', status: 400 });
    }
    expect(seen.some((s) => s.path === '/json' && s.headers.authorization)).toBe(false);
  });
});

describe('guarded fetch: redirects', () => {
  it('judges every hop again: a redirect to a loopback port or name not allowed, or to metadata, is refused and never reached', async () => {
    for (const path of ['/to-denied', '/to-denied-name', '/to-metadata'])
      expect(await code(net(`${allowed.url}${path}`)), path).toBe('URL_NOT_ALLOWED');
    expect(denied.connections()).toBe(0);
    expect(await code(net(`${allowed.url}/to-file`))).toBe('FETCH_FAILED');
  });

  it('follows at most maxRedirects, then FETCH_FAILED', async () => {
    const before = seen.length;
    const err = await net(`${allowed.url}/loop/0`).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FETCH_FAILED', status: 502 });
    expect(seen.slice(before).map((s) => s.path)).toEqual(['/loop/0', '/loop/1', '/loop/2', '/loop/3']);
  });

  it('303, and 302 after a POST, continue as GET without the body; 307 keeps both', async () => {
    const post = { method: 'POST' as const, headers: { 'content-type': 'text/plain' }, body: 'payload' };
    expect(await (await net(`${allowed.url}/see-other`, post)).json()).toMatchObject({ method: 'GET', body: '' });
    const found = (await (await net(`${allowed.url}/found`, post)).json()) as {
      method: string;
      body: string;
      headers: Record<string, string>;
    };
    expect(found).toMatchObject({ method: 'GET', body: '' });
    expect(found.headers['content-type']).toBeUndefined();
    const kept = await net(`${allowed.url}/to-echo`, post);
    expect(kept.url).toBe(`${allowed.url}/echo`);
    expect(await kept.json()).toMatchObject({ method: 'POST', body: 'payload' });
  });

  it('never forwards authorization or key headers to another origin; keeps them on the same origin', async () => {
    const headers = {
      authorization: 'Bearer sk-secret',
      'x-api-key': 'k-secret',
      cookie: 'c=1',
      accept: 'application/json',
    };
    const same = (await (await net(`${allowed.url}/to-echo`, { headers })).json()) as {
      headers: Record<string, string>;
    };
    expect(same.headers).toMatchObject({ authorization: 'Bearer sk-secret', 'x-api-key': 'k-secret' });
    const res = await net(`${allowed.url}/to-other`, { headers });
    expect(res.url).toBe(`${other.url}/echo`);
    const cross = (await res.json()) as { headers: Record<string, string> };
    expect(cross.headers.authorization).toBeUndefined();
    expect(cross.headers['x-api-key']).toBeUndefined();
    expect(cross.headers.cookie).toBeUndefined();
    expect(cross.headers.accept).toBe('application/json');
  });

  it('followRedirects: false answers the redirect as it is', async () => {
    const before = seen.length;
    const res = await net(`${allowed.url}/to-denied`, { followRedirects: false });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${denied.url}/x`);
    expect(seen.length - before).toBe(1);
  });
});

describe('guarded fetch: limits and abort', () => {
  it('a server that never answers fails after the total timeout (FETCH_FAILED), as does a body that stalls', async () => {
    const quick = createGuardedFetch({ ...policy, totalTimeoutMs: 300 });
    const started = Date.now();
    const err = await quick(`${allowed.url}/silent`).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FETCH_FAILED', status: 502 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(Date.now() - started).toBeLessThan(3000);
    const stalled = await quick(`${allowed.url}/stall`);
    expect(stalled.status).toBe(200);
    expect(await code(stalled.text())).toBe('FETCH_FAILED');
    // Per request, a lower limit wins.
    expect(await code(net(`${allowed.url}/silent`, { totalTimeoutMs: 200 }))).toBe('FETCH_FAILED');
  });

  it('a body past maxBytes errors with RESPONSE_TOO_LARGE, declared or counted while streaming; a request may raise the limit', async () => {
    expect(await code((await net(`${allowed.url}/big`)).bytes())).toBe('RESPONSE_TOO_LARGE');
    const chunked = await net(`${allowed.url}/big-chunked`);
    expect(chunked.headers.get('content-length')).toBeNull();
    expect(await code(chunked.text())).toBe('RESPONSE_TOO_LARGE');
    expect((await (await net(`${allowed.url}/big-chunked`, { maxBytes: 8192 })).bytes()).length).toBe(8192);
  });

  it('an abort by the caller passes through as an AbortError, before the answer and while reading it', async () => {
    const early = new AbortController();
    const pending = net(`${allowed.url}/silent`, { signal: early.signal });
    setTimeout(() => early.abort(), 50);
    expect(await code(pending)).toBe('AbortError');

    const late = new AbortController();
    const res = await net(`${allowed.url}/stall`, { signal: late.signal });
    const reading = res.text();
    setTimeout(() => late.abort(), 50);
    expect(await code(reading)).toBe('AbortError');
  });

  it('a port where nothing listens is FETCH_FAILED', async () => {
    const closed = await listenOnLoopback((_req, res) => res.end());
    const url = closed.url;
    await closed.close();
    const open = createGuardedFetch({ ...policy, allowedPrivateHosts: [new URL(url).host] });
    const err = await open(url).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FETCH_FAILED' });
    expect((err as Error).message).toContain('ECONNREFUSED');
  });
});
