/** Debian's native `tesseract` CLI as the reference: one process per page image, single-threaded OpenMP. */
import { execFile, execFileSync } from 'node:child_process';

export function nativeTesseractVersion(): string | null {
  try {
    return execFileSync('tesseract', ['--version'], { encoding: 'utf8' }).split('\n')[0]?.trim() ?? null;
  } catch {
    return null;
  }
}

export interface NativeRun {
  text: string;
  ms: number;
  /** Peak RSS of the process in KiB (GNU time's %M), null when /usr/bin/time is missing. */
  maxRssKb: number | null;
  /** User + system CPU time of the process in ms (GNU time's %U + %S). */
  cpuMs: number;
}

/** OCRs one image with `tesseract IMAGE - --oem 1 --psm 3 -l eng --dpi DPI` (LSTM only, automatic layout). */
export function runNative(image: string, dpi: number): Promise<NativeRun> {
  const args = [image, '-', '--oem', '1', '--psm', '3', '-l', 'eng', '--dpi', String(dpi)];
  const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile(
      '/usr/bin/time',
      ['-f', 'MAXRSS %M CPU %U %S', 'tesseract', ...args],
      { env, maxBuffer: 1 << 26 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`tesseract failed on ${image}: ${stderr || err.message}`));
        const m = /MAXRSS (\d+) CPU ([\d.]+) ([\d.]+)/.exec(stderr);
        const cpuMs = m ? 1000 * (Number(m[2]) + Number(m[3])) : NaN;
        resolve({ text: stdout, ms: performance.now() - start, maxRssKb: m?.[1] ? Number(m[1]) : null, cpuMs });
      },
    );
  });
}

/** Runs the images through `parallel` native processes at a time; returns the wall time and peak RSS. */
export async function runNativePool(
  images: readonly string[],
  dpi: number,
  parallel: number,
): Promise<{ ms: number; maxRssKb: number | null; cpuMs: number }> {
  const queue = [...images];
  let peak: number | null = null;
  let cpuMs = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let img = queue.shift(); img; img = queue.shift()) {
        const r = await runNative(img, dpi);
        if (r.maxRssKb !== null) peak = Math.max(peak ?? 0, r.maxRssKb);
        cpuMs += r.cpuMs;
      }
    }),
  );
  return { ms: performance.now() - start, maxRssKb: peak, cpuMs };
}
