/**
 * How long a node waits for its PostgreSQL. A database that stopped answering without closing its
 * connections (its processes frozen, a network partition) gives node-postgres no error at all: a connect
 * waits for the server's greeting and a query for its answer, forever, and so did every HTTP request, event
 * stream, job save and heartbeat behind them. Here each wait has a bound:
 * - connecting, and waiting for a free pooled connection: the pool's `connectionTimeoutMillis`;
 * - one statement: the client below destroys its connection when no answer came within the bound, which
 *   fails that statement and everything queued on the connection at once (unavailable.ts makes that 503
 *   DATABASE_UNAVAILABLE) and leaves the connection unusable, so the pool drops it instead of handing out a
 *   connection whose answers would come for statements nobody waits for any more. The server gets the same
 *   bound as `statement_timeout`, so a statement that was only slow stops there too instead of running on
 *   (and, once a frozen server thaws, a write its client gave up on is cancelled rather than committed late);
 * - an idle connection: TCP keepalive, so one whose peer is gone is found out by the kernel;
 * - a listening connection, which sends nothing of its own: probed (see `keepProbing`).
 * Long operations (migrations at start, `lectern migrate`'s batches) take connections without the statement
 * bound: they may rightly run for minutes.
 */
import pg from 'pg';

/** Idle time before the kernel starts probing a connection's peer. */
const KEEPALIVE_IDLE_MS = 10_000;

/** The error a statement fails with when its answer did not come in time; unavailable.ts knows its words. */
export const noAnswer = (ms: number): Error => new Error(`no answer from the database in ${ms} ms`);

type QueryArgs = unknown[];
type Callback = (err: Error | undefined, res?: unknown) => void;

/** A node-postgres client whose every statement (and its wait in the client's queue) is bounded by `ms`. */
export function boundedClient(ms: number): typeof pg.Client {
  return class BoundedClient extends pg.Client {
    override query(...args: QueryArgs): any {
      const timer = setTimeout(() => this.connection.stream.destroy(noAnswer(ms)), ms);
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = ((err, res) => {
          clearTimeout(timer);
          (callback as Callback)(err, res);
        }) satisfies Callback;
      }
      let out: any;
      try {
        out = (super.query as (...a: QueryArgs) => unknown)(...args);
      } catch (err) {
        clearTimeout(timer);
        throw err;
      }
      if (typeof callback === 'function') return out;
      if (typeof out?.then === 'function') {
        const settled = (): void => clearTimeout(timer);
        (out as Promise<unknown>).then(settled, settled);
      } else if (typeof out?.once === 'function') {
        // A submittable (a cursor, a stream): bounded until its end or its error.
        out.once('end', () => clearTimeout(timer));
        out.once('error', () => clearTimeout(timer));
      } else clearTimeout(timer);
      return out;
    }
  };
}

export interface PoolBounds {
  /** Connections the pool opens at most. */
  max: number;
  /** The bound on connecting, on waiting for a pooled connection, and (unless `longStatements`) on one statement. */
  timeoutMs: number;
  /** Statements may run as long as they need (migrations, bulk copies): no statement bound. */
  longStatements?: boolean;
}

/** A connection's settings: bounded connect, TCP keepalive; statements unbounded. */
export function connectionConfig(url: string, timeoutMs: number): pg.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
  };
}

export function boundedPoolConfig(url: string, b: PoolBounds): pg.PoolConfig {
  return {
    ...connectionConfig(url, b.timeoutMs),
    max: b.max,
    ...(b.longStatements ? {} : { statement_timeout: b.timeoutMs, Client: boundedClient(b.timeoutMs) }),
  };
}

/**
 * Sends a trivial statement on `client` every `everyMs` (one at a time), so that a listening connection,
 * which otherwise only waits for notifications, finds out that its database stopped answering: the
 * client's statement bound then breaks the connection, and its owner's 'error' path reconnects. Returns
 * the function that stops probing.
 */
export function keepProbing(client: pg.ClientBase, everyMs: number): () => void {
  let probing = false;
  const timer = setInterval(() => {
    if (probing) return;
    probing = true;
    client
      .query('SELECT 1')
      // A failed probe broke the connection, which its owner hears as an 'error' of the client.
      .catch(() => undefined)
      .finally(() => (probing = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Gives a listening connection back to the pool with its LISTENs undone (`channels`: one, or `*`); one that
 * cannot even do that is given back with the error, so the pool drops it rather than hand it out listening.
 */
export async function releaseListening(client: pg.PoolClient, channels: string): Promise<void> {
  try {
    await client.query(`UNLISTEN ${channels}`);
    client.release();
  } catch (err) {
    client.release(err as Error);
  }
}
