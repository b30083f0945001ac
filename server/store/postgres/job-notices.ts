/**
 * Job changes between a team server's nodes: PostgreSQL NOTIFY on one channel, the payload a job id. A
 * worker node reading a job tells every API node, whose followers (GET /jobs/{id}/events) and bots
 * pipeline hear it as if the job were read there.
 *
 * Lifetimes: one pooled connection per node LISTENs for as long as the node runs, and sends the node's
 * own notices too, so the node knows its own (same backend pid) and does not hear them twice. If that
 * connection drops, notices are sent through the pool meanwhile (the node then hears its own once more,
 * which is harmless) and the connection is opened again every RECONNECT_MS; notices sent while it was down
 * are lost: followers catch up on their own slower beat, and `missed` is called once the LISTEN is back,
 * for whoever cannot wait for a beat (the bots pipeline, which would otherwise leave a document read during
 * a database restart unindexed until the node restarts). A database that stops answering without closing
 * the connection (frozen, cut off) would leave it listening to nothing: it is probed every `probeMs`, and a
 * probe with no answer within the statement bound breaks it, which is then a dropped connection like any
 * other. The connection, and the LISTEN, die with the process.
 */
import type pg from 'pg';
import { keepProbing, releaseListening } from './bounded-waits.js';
import { DEFAULT_DATABASE_TIMEOUT_MS } from './defaults.js';

const CHANNEL = 'lectern_job_changed';
const RECONNECT_MS = 1000;

export interface JobNotices {
  /** Tells the other nodes that the job changed (fire and forget: a lost notice only slows a follower). */
  send(jobId: string): void;
  close(): Promise<void>;
}

export async function openJobNotices(
  pool: pg.Pool,
  heard: (jobId: string) => void,
  missed: () => void = () => undefined,
  probeMs = DEFAULT_DATABASE_TIMEOUT_MS,
): Promise<JobNotices> {
  let client: pg.PoolClient | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let unhook = (): void => undefined;

  const onNotification = (msg: pg.Notification): void => {
    if (msg.channel !== CHANNEL || !msg.payload) return;
    if (client && msg.processId === (client as unknown as { processID: number }).processID) return;
    heard(msg.payload);
  };

  function lost(c: pg.PoolClient, err: Error): void {
    if (client !== c) return;
    client = null;
    unhook();
    c.release(err);
    if (!closed) retry = setTimeout(() => void connect(true).catch(() => undefined), RECONNECT_MS);
  }

  async function connect(again = false): Promise<void> {
    let c: pg.PoolClient;
    try {
      c = await pool.connect();
    } catch (err) {
      if (!closed) retry = setTimeout(() => void connect(true).catch(() => undefined), RECONNECT_MS);
      throw err;
    }
    const onError = (err: Error): void => lost(c, err);
    const onEnd = (): void => lost(c, new Error('the job notices connection ended'));
    c.on('notification', onNotification);
    c.on('error', onError);
    c.on('end', onEnd);
    const stopProbing = keepProbing(c, probeMs);
    unhook = () => {
      stopProbing();
      c.off('notification', onNotification);
      c.off('error', onError);
      c.off('end', onEnd);
    };
    client = c;
    try {
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      lost(c, err as Error);
      throw err;
    }
    if (closed) return void (await drop());
    if (again) missed();
  }

  async function drop(): Promise<void> {
    const c = client;
    client = null;
    if (!c) return;
    unhook();
    await releaseListening(c, CHANNEL);
  }

  await connect();
  return {
    send(jobId) {
      if (closed) return;
      const via: Pick<pg.Pool, 'query'> = client ?? pool;
      via.query('SELECT pg_notify($1, $2)', [CHANNEL, jobId]).catch(() => undefined);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await drop();
    },
  };
}
