import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../core/errors.js';
import { declareErrors } from './errors.js';

export interface HostsOptions {
  /** The listen address of the settings (`host`): a name or address, or a wildcard (0.0.0.0, ::). */
  listenHost: string;
  /** The setting allowed_hosts: `host:port`, or `host` for the listening port; IPv6 in brackets. */
  allowedHosts: readonly string[];
}

interface HostName {
  /** Lower case, IPv6 in brackets, no trailing dot: the form Host headers are compared in. */
  name: string;
  port?: number;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** `host[:port]` as a Host header or a setting writes it; undefined when it is neither. */
function parseHostPort(raw: string): HostName | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^\s:[\]/@]+)(?::(\d{1,5}))?$/i.exec(raw.trim());
  if (!m?.[1]) return undefined;
  const name = m[1].toLowerCase().replace(/\.+$/, '');
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (!name || (port !== undefined && port > 65535)) return undefined;
  return { name, port };
}

const bracketed = (address: string): string => (address.includes(':') ? `[${address.toLowerCase()}]` : address);

/** The names this server answers to whatever the port: loopback, the listen address, this machine's addresses when it listens on all. */
function ownNames(listenHost: string): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  const listen = parseHostPort(listenHost)?.name ?? listenHost.toLowerCase();
  if (!WILDCARDS.has(listen)) names.add(bracketed(listen.replace(/^\[(.*)\]$/, '$1')));
  else {
    // Listening on every interface: a client on the network names one of this machine's addresses.
    for (const list of Object.values(networkInterfaces()))
      for (const a of list ?? []) names.add(bracketed(a.address.replace(/%.*$/, '')));
  }
  return names;
}

/**
 * Refuses (421 MISDIRECTED_REQUEST) every request whose Host is not this server's: DNS rebinding points a
 * web site's name at 127.0.0.1, and the browser then sends that site's name as Host. Allowed: localhost,
 * 127.0.0.1, [::1], the listen address (this machine's addresses when it listens on all) and the setting
 * allowed_hosts. A port, when the Host gives one, must be the one the request came in on (an allowed_hosts
 * entry that names a port, as for a proxy in front, is taken as written). The server is
 * usually told to listen on port 0 (tests, the desktop app), so the port is read from the socket at each
 * request rather than from the settings: no request can arrive before the server listens.
 */
export const hostsPlugin = fp(async (app: FastifyInstance, opts: HostsOptions) => {
  const own = ownNames(opts.listenHost);
  const extra = opts.allowedHosts.map((entry) => {
    const parsed = parseHostPort(entry);
    if (!parsed) throw new Error(`allowed_hosts entry ${JSON.stringify(entry)} is not host or host:port`);
    return parsed;
  });
  // Any route may answer it; the OpenAPI document says so once, here.
  app.addHook('onRoute', (route) => declareErrors(route, 421));
  app.addHook('onRequest', async (req) => {
    const raw = req.headers.host ?? '';
    const given = parseHostPort(raw);
    // The port the request came in on; `inject()` calls have none (no socket), a real request always does.
    const port = (req.raw.socket as { localPort?: number } | undefined)?.localPort;
    const onThisPort = (p: number | undefined) => p === undefined || port === undefined || p === port;
    const allowed =
      given !== undefined &&
      ((own.has(given.name) && onThisPort(given.port)) ||
        // An entry with a port is taken as written (a proxy in front may listen on another port).
        extra.some(
          (e) => e.name === given.name && (e.port === undefined ? onThisPort(given.port) : e.port === given.port),
        ));
    if (!allowed) {
      throw new AppError(
        'MISDIRECTED_REQUEST',
        `this server does not answer for the host ${JSON.stringify(raw.slice(0, 200))}; add it to the setting allowed_hosts if it is this machine`,
        {
          host: raw.slice(0, 200),
        },
      );
    }
  });
});
