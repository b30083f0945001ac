/** Memory figures from /proc (Linux only). Worker threads live in the server's process, so its VmHWM covers them. */
import { readFileSync, readdirSync } from 'node:fs';

/** A field of /proc/<pid>/status in KiB (VmHWM = peak RSS, VmRSS = current RSS), or null when unreadable. */
export function procStatusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m?.[1] ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Child processes of pid, recursively (in case the server forks helpers instead of using threads). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const c of children.split(/\s+/).filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

export interface PeakMemory {
  /** VmHWM of the server process itself. */
  serverKb: number | null;
  /** Sum of the VmHWM of its child processes (0 when it has none). */
  childrenKb: number;
  childCount: number;
}

export function peakMemory(pid: number): PeakMemory {
  const kids = descendants(pid);
  const childrenKb = kids.reduce((sum, c) => sum + (procStatusKb(c, 'VmHWM') ?? 0), 0);
  return { serverKb: procStatusKb(pid, 'VmHWM'), childrenKb, childCount: kids.length };
}
