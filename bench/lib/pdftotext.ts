/** Poppler's pdftotext as the baseline: presence check (with an automatic install as root), timing, page count. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

function hasTool(tool: string): boolean {
  const r = spawnSync(tool, ['-v'], { stdio: 'ignore' });
  return !r.error;
}

/**
 * Makes sure pdftotext and pdfinfo are on PATH. As root it tries `apt-get install -y poppler-utils` (after an
 * `apt-get update` when the first try fails); otherwise, or when that fails, it returns the advice to print.
 */
export function ensurePdftotext(log: (line: string) => void): { ok: true } | { ok: false; advice: string } {
  if (hasTool('pdftotext') && hasTool('pdfinfo')) return { ok: true };
  const advice =
    'pdftotext (Debian package poppler-utils) is required for the baseline. Install it with:\n' +
    '  apt-get update && apt-get install -y poppler-utils';
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return { ok: false, advice };
  log('pdftotext is missing: installing poppler-utils with apt-get ...');
  const apt = (args: string[]): boolean =>
    spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
      .status === 0;
  if (!apt(['install', '-y', 'poppler-utils'])) {
    apt(['update']);
    apt(['install', '-y', 'poppler-utils']);
  }
  return hasTool('pdftotext') && hasTool('pdfinfo') ? { ok: true } : { ok: false, advice };
}

export function pdftotextVersion(): string {
  const r = spawnSync('pdftotext', ['-v'], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`.split('\n')[0]?.trim() ?? 'unknown';
}

/** Median wall time in ms of `runs` runs of `pdftotext file out.txt`. */
export function timePdftotext(file: string, runs = 3): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-pdftotext-'));
  try {
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      execFileSync('pdftotext', [file, path.join(dir, 'out.txt')], { stdio: 'ignore' });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] ?? Number.NaN;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Page count as poppler's pdfinfo reads it. */
export function pdfPageCount(file: string): number {
  const out = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
  const m = /^Pages:\s+(\d+)/m.exec(out);
  return m?.[1] ? Number(m[1]) : Number.NaN;
}
