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
}

/** OCRs one image with `tesseract IMAGE - --oem 1 --psm 3 -l eng --dpi DPI` (LSTM only, automatic layout). */
export function runNative(image: string, dpi: number): Promise<NativeRun> {
  const args = [image, '-', '--oem', '1', '--psm', '3', '-l', 'eng', '--dpi', String(dpi)];
  const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
  const start = performance.now();
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/time', ['-f', 'MAXRSS %M', 'tesseract', ...args], { env, maxBuffer: 1 << 26 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`tesseract failed on ${image}: ${stderr || err.message}`));
      const m = /MAXRSS (\d+)/.exec(stderr);
      resolve({ text: stdout, ms: performance.now() - start, maxRssKb: m?.[1] ? Number(m[1]) : null });
    });
  });
}

/** Runs the images through `parallel` native processes at a time; returns the wall time and peak RSS. */
export async function runNativePool(images: readonly string[], dpi: number, parallel: number): Promise<{ ms: number; maxRssKb: number | null }> {
  const queue = [...images];
  let peak: number | null = null;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let img = queue.shift(); img; img = queue.shift()) {
        const r = await runNative(img, dpi);
        if (r.maxRssKb !== null) peak = Math.max(peak ?? 0, r.maxRssKb);
      }
    }),
  );
  return { ms: performance.now() - start, maxRssKb: peak };
}
