import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { listenOnLoopback, type LoopbackServer } from './loopback-server.js';

export interface MirrorRequest {
  name: string;
  range?: string;
}

/** What the next answer of a file does: break off after `cutAt` bytes, or send `holdAt` bytes and wait for `release()`. */
export interface MirrorPlan {
  cutAt?: number;
  holdAt?: number;
  /** Serves these bytes instead of the real file (a corrupted mirror). */
  corrupt?: boolean;
  /** Serves the file cut short or padded to this many bytes (another file under the same name). */
  bytes?: number;
}

export interface ModelMirror extends LoopbackServer {
  /** `host:port`, for the setting allowed_private_hosts. */
  host: string;
  requests: MirrorRequest[];
  /** Applies to the next request of `name` only. */
  plan(name: string, plan: MirrorPlan): void;
  /** Resolves when a held answer has sent its first `holdAt` bytes. */
  held(): Promise<void>;
  /** Sends the rest of a held answer. */
  release(): void;
}

/**
 * A model mirror (the setting model_mirror_url) on a loopback port, serving real model files by name with
 * Range support, as a CDN does; tests break, hold or corrupt an answer to see what a pull does then.
 */
export async function startModelMirror(files: string[]): Promise<ModelMirror> {
  const bodies = new Map(files.map((f) => [basename(f), readFileSync(f)]));
  const plans = new Map<string, MirrorPlan>();
  const requests: MirrorRequest[] = [];
  let heldNow: (() => void) | undefined;
  let onHeld: (() => void) | undefined;
  let heldReached = new Promise<void>((ok) => (onHeld = ok));
  const server = await listenOnLoopback((req, res) => {
    const name = decodeURIComponent((req.url ?? '').replace(/^\//, ''));
    requests.push({ name, range: req.headers.range });
    const real = bodies.get(name);
    if (!real) return void res.writeHead(404).end();
    const plan = plans.get(name) ?? {};
    plans.delete(name);
    const sized =
      plan.bytes === undefined
        ? real
        : Buffer.concat([real.subarray(0, plan.bytes), Buffer.alloc(Math.max(0, plan.bytes - real.length), 7)]);
    const body = plan.corrupt ? Buffer.from(sized).fill(7, 1000, 2000) : sized;
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? '')?.[1] ?? 0);
    const slice = body.subarray(from);
    res.writeHead(from ? 206 : 200, {
      'content-type': 'application/octet-stream',
      'content-length': slice.length,
      ...(from ? { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` } : {}),
    });
    if (plan.cutAt !== undefined) {
      // A connection that drops part-way: the bytes before the cut arrive, then the socket is gone.
      res.write(slice.subarray(0, plan.cutAt), () => res.destroy());
      return;
    }
    if (plan.holdAt !== undefined) {
      const at = plan.holdAt;
      res.write(slice.subarray(0, at), () => onHeld?.());
      heldNow = () => res.end(slice.subarray(at));
      return;
    }
    res.end(slice);
  });
  return {
    ...server,
    host: new URL(server.url).host,
    requests,
    plan: (name, plan) => void plans.set(name, plan),
    held: () => heldReached,
    release() {
      heldNow?.();
      heldNow = undefined;
      heldReached = new Promise<void>((ok) => (onHeld = ok));
    },
  };
}
