/**
 * Piscina task module: one named export per task of `TaskMap` (server/core/tasks.ts).
 * - extract: reads a stored original, extracts typed blocks, numbers and chunks them, posting
 *   `ProgressMessage`s on `progressPort` after each page.
 * - extractPdfLead, readPdfShare: the same for a PDF read by two threads at once (see readPdfShare): each
 *   reads its share of the pages, the helper posts its layouts straight to the lead, which assembles,
 *   numbers and chunks them.
 * - chunk: rebuilds chunks from reviewed blocks.
 * - renderPage, ocrPage: a page of a stored PDF or image as PNG, and OCR of a page or region of it. OCR (in
 *   extraction too) uses this thread's tesseract.js engine, started on first use and kept for the thread's
 *   life (server/core/ocr/tesseract.ts); the thread's end (cancellation) ends the engine's own thread too.
 * - embed: embeds texts with a local ONNX model (one onnxruntime thread per worker, so two workers use two
 *   cores); the model is loaded on the first task that names it and kept for the thread's life. A batch's
 *   vectors (~50 KB) are cloned back; moving them is not worth the ceremony.
 * - readablePage: a fetched web page reduced to its main content (Readability over linkedom).
 * Cancellation is the pool's AbortSignal, which terminates the thread running the task. Errors go back
 * as plain `{ code, message }` objects. The HTTP thread never parses a document: all of that runs here.
 * Every document is read within the pool's limits (`workerData.limits`: decompressed bytes, pixels, pages),
 * and the thread's V8 heap is limited (the pool's resourceLimits): a document that exhausts it ends this
 * thread, and with it only its own task (the pool reports OUT_OF_MEMORY and starts another thread).
 */
import { readFile } from 'node:fs/promises';
import { BroadcastChannel, threadId, type MessagePort } from 'node:worker_threads';
import { workerData } from 'piscina';
import { buildChunks } from '../server/core/chunking/index.js';
import { extractDocument } from '../server/core/read-document.js';
import { numberBlocks } from '../server/core/extract/number-blocks.js';
import {
  assemblePdf as assemble,
  readPdfPages,
  readPdfShare as readShare,
  type PdfPages,
} from '../server/core/extract/pdf/index.js';
import { loadPdfJs } from '../server/core/extract/pdf/pdfjs-loader.js';
import { ocrImage, ocrOpenPdfPage, ocrPdfPage } from '../server/core/ocr/ocr-page.js';
import { setThreadLanguagesDir } from '../server/core/ocr/ocr-languages.js';
import { detectLanguage } from '../server/core/extract/detect-language.js';
import { pageImagePng } from '../server/core/ocr/page-image.js';
import { warmUpPdf } from '../server/core/extract/pdf/warm-up-pdf.js';
import { DEFAULT_LIMITS } from '../server/core/extract/limits.js';
import { setHeapBudget } from '../server/core/extract/heap-guard.js';
import type { ExtractionResult } from '../server/core/extract/types.js';
import type {
  ChunkTaskInput,
  EmbedTaskInput,
  ExtractTaskInput,
  PdfHelperTaskInput,
  PdfLeadTaskInput,
  ProgressMessage,
  TaskMap,
  WarmUpMessage,
  WorkerSettings,
} from '../server/core/tasks.js';
import { embedWith } from '../server/core/embedding/worker-embedders.js';
import { readablePage as reduceToReadable } from '../server/core/sources/readable-html.js';

/** Real tasks running on this thread: the warm-up gives way to them. */
let busy = 0;

// Every thread loads pdf.js (~1 s) as it starts, not in the middle of the first document it is given
// (a long PDF is shared among all threads, and one cold thread would hold the others up), then reads a
// warm-up document a few times so that its first real documents do not run unoptimised (2-3x slower).
// The pool hears on its warm-up channel when this thread is done.
const {
  warmUpRounds = 0,
  warmUpChannel,
  limits = DEFAULT_LIMITS,
  ocrLanguagesDir,
  heapBudgetMb,
} = (workerData ?? {}) as Partial<WorkerSettings>;
setThreadLanguagesDir(ocrLanguagesDir);
setHeapBudget(heapBudgetMb);
void loadPdfJs()
  .then(warmUp)
  .catch(() => 0)
  .then((rounds) => {
    if (!warmUpChannel) return;
    const channel = new BroadcastChannel(warmUpChannel);
    channel.postMessage({ threadId, rounds } satisfies WarmUpMessage);
    channel.close();
  });

type Out<K extends keyof TaskMap> = Promise<TaskMap[K]['output']>;

/** Only name, message and stack of an Error survive the trip to the main thread: send the code as data. */
async function task<T>(work: () => Promise<T>, port?: MessagePort): Promise<T> {
  busy++;
  try {
    return await work();
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    throw {
      code: typeof e?.code === 'string' ? e.code : 'EXTRACTION_FAILED',
      message: typeof e?.message === 'string' ? e.message : String(err),
    };
  } finally {
    busy--;
    port?.close();
  }
}

const reporter = (port?: MessagePort) => (pagesDone: number, totalPages: number) =>
  port?.postMessage({ pagesDone, totalPages } satisfies ProgressMessage);

function numberAndChunk({ blocks, ...document }: ExtractionResult, input: Pick<ExtractTaskInput, 'chunk' | 'id_seed'>) {
  document.language = detectLanguage(blocks);
  const numbered = numberBlocks(blocks);
  const chunks = buildChunks(
    numbered.map((b) => ({
      block_id: b.block_id,
      type: b.type,
      text: b.text,
      page: b.page,
      heading_level: b.heading_level ?? null,
    })),
    { ...input.chunk, id_seed: input.id_seed },
  );
  return { document, blocks: numbered, chunks };
}

/**
 * Reads the warm-up PDF the way a real document is read (pages, assembly, numbering, chunking) up to
 * `warmUpRounds` times, stopping as soon as real work arrives; returns the rounds done.
 */
async function warmUp(): Promise<number> {
  const data = warmUpPdf();
  let rounds = 0;
  for (; rounds < warmUpRounds && busy === 0; rounds++) {
    numberAndChunk(assemble([await readPdfPages(data)]), {
      chunk: { target_tokens: 256, overlap_tokens: 32 },
      id_seed: 'warm-up',
    });
  }
  return rounds;
}

export function extract(input: ExtractTaskInput): Out<'extract'> {
  return task(
    async () =>
      numberAndChunk(
        await extractDocument(input.path, input.format, {
          onProgress: reporter(input.progressPort),
          ocr: input.ocr,
          limits,
        }),
        input,
      ),
    input.progressPort,
  );
}

export function extractPdfLead(input: PdfLeadTaskInput): Out<'extractPdfLead'> {
  const { helperPort } = input;
  return task(async () => {
    const theirs = fromHelper(helperPort);
    theirs.catch(() => undefined); // awaited below; a helper that stops early must not count as unhandled meanwhile
    const mine = (await readShare(new Uint8Array(await readFile(input.path)), 0, 2, input.nextRun, {
      onProgress: reporter(input.progressPort),
      ocr: input.ocr,
      pageOcr: ocrOpenPdfPage,
      limits,
    })) as PdfPages;
    const other = await theirs;
    return numberAndChunk(assemble(other ? [mine, other] : [mine]), input);
  }, input.progressPort).finally(() => helperPort.close());
}

/** The helper's share, or an error if its thread stops without sending one (the pool then stops this task too). */
function fromHelper(port: MessagePort): Promise<PdfPages | null> {
  return new Promise((resolve, reject) => {
    port.once('message', (pages: PdfPages | null) => resolve(pages));
    port.once('close', () => reject(new Error('the second reader of the PDF stopped')));
  });
}

export function readPdfShare(input: PdfHelperTaskInput): Out<'readPdfShare'> {
  const { leadPort } = input;
  return task(async () => {
    leadPort.postMessage(
      await readShare(new Uint8Array(await readFile(input.path)), 1, 2, input.nextRun, {
        onProgress: reporter(input.progressPort),
        ocr: input.ocr,
        pageOcr: ocrOpenPdfPage,
        limits,
      }),
    );
  }, input.progressPort).finally(() => leadPort.close());
}

export function chunk(input: ChunkTaskInput): Out<'chunk'> {
  return task(async () => buildChunks(input.blocks, input.options));
}

export function renderPage(input: TaskMap['renderPage']['input']): Out<'renderPage'> {
  return task(async () =>
    pageImagePng(new Uint8Array(await readFile(input.path)), input.format, input.page, input.width, limits),
  );
}

export function ocrPage(input: TaskMap['ocrPage']['input']): Out<'ocrPage'> {
  return task(async () => {
    const data = new Uint8Array(await readFile(input.path));
    const opts = { lang: input.lang, dpi: input.dpi, bbox: input.bbox, limits };
    if (input.format === 'pdf') return ocrPdfPage(data, input.page, opts);
    // An image's pixels are what they are: its size in points comes from the dpi the file states (else 300),
    // as when it was extracted, so the new boxes match the old ones.
    if (input.format === 'image')
      return ocrImage(data, { lang: input.lang, bbox: input.bbox, index: input.page - 1, limits });
    throw { code: 'INVALID_STATE', message: `a ${input.format} document has no pages to OCR` };
  });
}

export function embed(input: EmbedTaskInput): Out<'embed'> {
  return task(() => embedWith(input.model, input.texts));
}

export function readablePage(input: TaskMap['readablePage']['input']): Out<'readablePage'> {
  return task(async () => reduceToReadable(input.html, input.url));
}
