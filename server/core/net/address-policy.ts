import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

/** A URL an outbound request may be sent to: parsed, http(s), without credentials. */
export interface Target {
  url: URL;
  /** Without IPv6 brackets or a trailing dot, lower case: the form hosts are compared and resolved in. */
  host: string;
  port: number;
}

interface AllowedHost {
  host: string;
  /** Any port when absent. */
  port?: number;
}

/**
 * Names refused before any lookup, whatever they resolve to here: `localhost` and its subdomains (RFC 6761
 * reserves them for this machine) and the cloud metadata services' names (GCP answers on both).
 */
const REFUSED_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata.goog']);

export const bareHost = (hostname: string): string =>
  hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '')
    .toLowerCase();

/** Parses and checks the URL's form; anything but plain http(s) is URL_INVALID (400). */
export function parseTarget(raw: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('URL_INVALID', `${JSON.stringify(raw.slice(0, 200))} is not a URL`, { url: raw.slice(0, 200) });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('URL_INVALID', `only http and https URLs can be fetched, not ${url.protocol}`, {
      url: url.href,
    });
  }
  // Credentials in a URL end up in logs and error messages, and browsers dropped them for that reason.
  if (url.username || url.password)
    throw new AppError('URL_INVALID', 'URLs with a user name or password are refused', { url: url.origin });
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { url, host: bareHost(url.hostname), port };
}

/**
 * The `allowed_private_hosts` entries, each `host:port` or `host` (any port), IPv6 in brackets. Hosts go
 * through the URL parser, so `127.1:8080` is the same entry as `127.0.0.1:8080`.
 */
export function parseAllowedHosts(entries: readonly string[]): AllowedHost[] {
  return entries.map((entry) => {
    const m = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry.trim());
    let host: string | undefined;
    try {
      host = m?.[1] ? bareHost(new URL(`http://${m[1]}/`).hostname) : undefined;
    } catch {
      host = undefined;
    }
    if (!m || !host)
      throw new AppError('URL_INVALID', `allowed private host ${JSON.stringify(entry)} is not host or host:port`);
    return m[2] === undefined ? { host } : { host, port: Number(m[2]) };
  });
}

export const isAllowedHost = (allowed: readonly AllowedHost[], host: string, port: number): boolean =>
  allowed.some((a) => a.host === host && (a.port === undefined || a.port === port));

/** The IPv4 address carried in the low 32 bits of an IPv6 address. */
const low32 = (v6: ipaddr.IPv6): ipaddr.IPv4 => {
  const b = v6.toByteArray();
  return new ipaddr.IPv4(b.slice(12, 16));
};

/**
 * Why an address may not be reached, or null for a public unicast one. Only what ipaddr.js calls
 * `unicast` passes: loopback, private, link-local (and with it 169.254.169.254), CGNAT, multicast,
 * unspecified, broadcast, reserved, documentation and benchmarking ranges all fail. IPv6 forms that
 * carry an IPv4 address (mapped, translated, compatible, NAT64, 6to4) are judged by the address inside.
 */
export function refusedAddressReason(address: string): string | null {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  const p = v6.parts;
  if (range === 'ipv4Mapped' || range === 'rfc6145') return innerReason(low32(v6), range);
  if (range === 'rfc6052') {
    // 64:ff9b::/96 translates to the IPv4 Internet; the local-use 64:ff9b:1::/48 (RFC 8215) to anywhere.
    return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 ? innerReason(low32(v6), 'NAT64') : 'local NAT64';
  }
  if (range === '6to4') return innerReason(new ipaddr.IPv4([p[1]! >> 8, p[1]! & 255, p[2]! >> 8, p[2]! & 255]), '6to4');
  if (range !== 'unicast') return range;
  // ::a.b.c.d (IPv4-compatible, deprecated by RFC 4291) is unicast to ipaddr.js, but some stacks route it to a.b.c.d.
  if (p.slice(0, 6).every((x) => x === 0)) return 'IPv4-compatible';
  return null;
}

function innerReason(v4: ipaddr.IPv4, form: string): string | null {
  const inner = v4.range();
  return inner === 'unicast' ? null : `${form} ${inner}`;
}

/** Refusal of a target on what can be told without DNS: an IP literal's range, a reserved name. */
export function checkTargetStatically(t: Target, allowed: readonly AllowedHost[]): void {
  if (isAllowedHost(allowed, t.host, t.port)) return;
  const reason = isIP(t.host)
    ? refusedAddressReason(t.host)
    : REFUSED_NAMES.has(t.host) || t.host.endsWith('.localhost')
      ? 'a name of this machine or of a metadata service'
      : null;
  if (reason) throw notAllowed(t.host, t.port, reason);
}

export function notAllowed(host: string, port: number, reason: string): AppError {
  const hostPort = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new AppError(
    'URL_NOT_ALLOWED',
    `outbound requests may not reach ${hostPort} (${reason}); list it in the setting allowed_private_hosts to allow it`,
    { host, port, reason },
  );
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves the name, refuses it unless every address is public (or the
 * host is allowed), and hands the connection exactly the addresses it checked: no second resolution can
 * answer differently between the check and the connect (DNS rebinding). Node skips `lookup` for IP
 * literals; `checkTargetStatically` has judged those already.
 */
export function checkingLookup(host: string, port: number, allowed: readonly AllowedHost[]) {
  const open = isAllowedHost(allowed, host, port);
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(
      hostname,
      { all: true, verbatim: true, family: options.family ?? 0, hints: options.hints ?? 0 },
      (err, addresses) => {
        if (err) return callback(err, '');
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
        if (!open) {
          for (const a of addresses) {
            const reason = refusedAddressReason(a.address);
            if (reason)
              return callback(
                notAllowed(host, port, `resolves to ${a.address}, ${reason}`) as NodeJS.ErrnoException,
                '',
              );
          }
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0]!;
        return callback(null, first.address, first.family);
      },
    );
  };
}
