/**
 * One OCR thread of the throughput bench: warms its engine on the first page (untimed, as a pool worker
 * would have done before taking work), says it is ready, then on "go" takes pages from the queue it shares
 * with the other threads (the next index of a shared counter, as a pool hands out tasks) until none is left.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

import { ocrImage } from '../../server/core/ocr/ocr-page.js';
import { terminateOcrEngines } from '../../server/core/ocr/tesseract.js';

const { files, dpi, next } = workerData as { files: string[]; dpi: number; next: Int32Array };
const port = parentPort;
if (!port) throw new Error('ocr-worker must run in a worker thread');
const images = files.map((f) => readFileSync(f));
if (images[0]) await ocrImage(images[0], { dpi });
port.postMessage({ ready: true });
port.once('message', async () => {
  const times: number[] = [];
  for (let i = Atomics.add(next, 0, 1); i < images.length; i = Atomics.add(next, 0, 1)) {
    const t = performance.now();
    await ocrImage(images[i] as Buffer, { dpi });
    times.push(performance.now() - t);
  }
  await terminateOcrEngines();
  port.postMessage({ done: true, times });
});
