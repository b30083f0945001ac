/**
 * A team server's node as a real child process: the built CLI (`bin/lectern.js serve|worker`) on a shared
 * database and data folder. An API node resolves once it listens, a worker once it reads the queue.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { listPage, repoRoot, serverClient, type ServerClient, type TestServer } from '../helpers/app.js';
import { jsonLines } from '../helpers/json-lines.js';

export interface TeamNodeOptions {
  kind: 'serve' | 'worker';
  databaseUrl: string;
  dataDir: string;
  key: string;
  /** Extra flags (e.g. --no-worker). */
  args?: string[];
  env?: Record<string, string>;
}

export interface TeamNode {
  readonly name: string;
  readonly pid: number;
  /** This node's name in the queue's records (worker_id), from its start-up log. */
  readonly workerId: string;
  /** Every line it logged (pino JSON), parsed. */
  readonly logs: Record<string, any>[];
  /** Resolves the first logged line (now or later) that `match` accepts; rejects if the node exits first. */
  logged(match: (line: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export type ApiNode = TeamNode & ServerClient & { readonly url: string; readonly key: string };

/** Short leases, so a dead node's work comes back in seconds; no warm-up, one thread each. */
const TEAM_ENV = {
  LECTERN_TASK_LEASE_MS: '3000',
  LECTERN_WARM_UP_ROUNDS: '0',
  LECTERN_LOG_LEVEL: 'info',
  LECTERN_WORKERS: '1',
};

export async function startNode(name: string, o: TeamNodeOptions & { kind: 'serve' }): Promise<ApiNode>;
export async function startNode(name: string, o: TeamNodeOptions & { kind: 'worker' }): Promise<TeamNode>;
export async function startNode(name: string, o: TeamNodeOptions): Promise<TeamNode | ApiNode> {
  const args = [
    join(repoRoot, 'bin', 'lectern.js'),
    o.kind,
    '--data-dir',
    o.dataDir,
    '--database-url',
    o.databaseUrl,
    ...(o.kind === 'serve' ? ['-p', '0'] : []),
    ...(o.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    // The data folder as working directory: no lectern.yaml of the repository is picked up.
    cwd: o.dataDir,
    env: { ...process.env, SERVICE_API_KEY: o.key, ...TEAM_ENV, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${name} did not start`);
  const out = jsonLines<Record<string, any>>(child, name);
  const logged: TeamNode['logged'] = (match, timeoutMs = 120_000) => out.first(match, timeoutMs);
  const node = {
    name,
    pid,
    logs: out.lines,
    logged,
    exited: out.exited,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await out.exited;
    },
  };
  try {
    const joined = await logged((l) => l.msg === 'joined the team queue' || l.msg === 'lectern worker reading');
    const workerId = String(joined.worker_id);
    if (o.kind === 'worker') return { ...node, workerId };
    const url = String((await logged((l) => l.msg === 'lectern listening')).address);
    return { ...node, workerId, url, key: o.key, ...serverClient(url, o.key) };
  } catch (err) {
    await node.kill('SIGKILL');
    throw err;
  }
}

/**
 * The nodes of one team that a test file starts on the same database and folder: `api` and `worker` start
 * one more, `nodes` holds every one started (for the file's afterAll to kill; several teams of a file may
 * share one list). `shared` may be set later, in a beforeAll, as long as it is set before the first node starts.
 */
export function teamNodes(shared: () => Omit<TeamNodeOptions, 'kind' | 'args'>, nodes: TeamNode[] = []) {
  return {
    nodes,
    async api(name: string, args: string[] = []): Promise<ApiNode> {
      const node = await startNode(name, { kind: 'serve', ...shared(), args });
      nodes.push(node);
      return node;
    },
    async worker(name: string): Promise<TeamNode> {
      const node = await startNode(name, { kind: 'worker', ...shared() });
      nodes.push(node);
      return node;
    },
    killAll: () => Promise.all(nodes.map((n) => n.kill('SIGKILL'))),
  };
}

/** Uploads a document through `node`; its job's id. */
export async function uploadJob(node: ApiNode, name: string, data: Uint8Array): Promise<string> {
  const res = await node.upload(name, data);
  if (res.status !== 201) throw new Error(`upload of ${name} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { job_id: string }).job_id;
}

/** Every block of the job (pages of 500), as read: id, page, type and text. */
export async function blocksOf(node: ApiNode, jobId: string) {
  const items: Record<string, any>[] = [];
  for (let skip = 0; ; skip += 500) {
    const page = await listPage(node as Pick<TestServer, 'call'>, `/jobs/${jobId}/blocks?skip=${skip}&limit=500`);
    items.push(...page.items);
    if (items.length >= page.total || page.items.length === 0) break;
  }
  return items.map((b) => ({ block_id: b.block_id, page: b.page, type: b.type, text: b.text }));
}
