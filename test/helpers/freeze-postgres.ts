/**
 * A PostgreSQL server frozen as a whole: its postmaster and every process it started (backends,
 * checkpointer, WAL writer, I/O workers…) stopped with SIGSTOP, so that its connections stay open and
 * nothing answers, as with a hung host or a network partition. Found by its data folder: the postmaster's
 * pid is the first line of postmaster.pid, its processes are those whose parent it is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

function postmasterOf(dataDir: string): number {
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${dataDir}/postmaster.pid`);
  return pid;
}

/** /proc/PID/stat's fields after the command name: state, then the parent's pid. */
function statOf(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state!, ppid: Number(ppid) };
  } catch {
    return undefined; // gone meanwhile
  }
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => statOf(pid)?.ppid === parent);
}

export interface FrozenPostgres {
  /** Every process stopped: the postmaster first. */
  readonly pids: readonly number[];
  /** Lets them all go on (idempotent). */
  thaw(): void;
}

/**
 * Stops the server's processes and returns once the kernel shows each one stopped. The postmaster is
 * stopped first: only it starts processes, so the list of its children taken after cannot grow.
 */
export async function freezePostgres(dataDir: string): Promise<FrozenPostgres> {
  const postmaster = postmasterOf(dataDir);
  process.kill(postmaster, 'SIGSTOP');
  const pids = [postmaster, ...childrenOf(postmaster)];
  for (const pid of pids.slice(1)) process.kill(pid, 'SIGSTOP');
  let thawed = false;
  const frozen: FrozenPostgres = {
    pids,
    thaw() {
      if (thawed) return;
      thawed = true;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // A backend may have been ended meanwhile (by the kernel, e.g. out of memory): nothing to go on.
        }
      }
    },
  };
  // SIGSTOP is delivered asynchronously: wait until /proc says "T" (stopped) for each.
  const until = Date.now() + 5000;
  while (pids.some((pid) => (statOf(pid)?.state ?? 'T') !== 'T')) {
    if (Date.now() > until) {
      frozen.thaw();
      throw new Error('the PostgreSQL processes did not stop');
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  return frozen;
}
