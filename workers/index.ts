/**
 * Piscina task module: one named export per task of `TaskMap` (server/core/tasks.ts).
 * - extract: reads a stored original, extracts typed blocks, numbers and chunks them, posting
 *   `ProgressMessage`s on `progressPort` after each page.
 * - pdfInfo, pdfPages, assemblePdf: the same for a long PDF split among several workers — page count
 *   first, then page ranges read in parallel, then one assembly over all the layouts.
 * - chunk: rebuilds chunks from reviewed blocks.
 * Cancellation is the pool's AbortSignal, which terminates the thread running the task. Errors go back
 * as plain `{ code, message }` objects. The HTTP thread never parses a document: all of that runs here.
 */
import { readFile } from 'node:fs/promises';
import type { MessagePort } from 'node:worker_threads';
import { buildChunks } from '../server/core/chunking/index.js';
import { extractDocument } from '../server/core/extract/extract-document.js';
import { numberBlocks } from '../server/core/extract/number-blocks.js';
import { assemblePdf as assemble, pdfInfo as info, readPdfPages } from '../server/core/extract/pdf/index.js';
import { loadPdfJs } from '../server/core/extract/pdf/pdfjs-loader.js';
import type { ExtractionResult } from '../server/core/extract/types.js';
import type { ChunkTaskInput, ExtractTaskInput, ProgressMessage, TaskMap } from '../server/core/tasks.js';

// Every thread loads pdf.js (~1 s) as it starts, not in the middle of the first document it is given:
// a long PDF is shared among all threads, and one cold thread would hold the others up.
void loadPdfJs();

type Out<K extends keyof TaskMap> = Promise<TaskMap[K]['output']>;

/** Only name, message and stack of an Error survive the trip to the main thread: send the code as data. */
async function task<T>(work: () => Promise<T>, port?: MessagePort): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    throw { code: typeof e?.code === 'string' ? e.code : 'EXTRACTION_FAILED', message: typeof e?.message === 'string' ? e.message : String(err) };
  } finally {
    port?.close();
  }
}

const reporter = (port?: MessagePort) => (pagesDone: number, totalPages: number) =>
  port?.postMessage({ pagesDone, totalPages } satisfies ProgressMessage);

function numberAndChunk({ blocks, ...document }: ExtractionResult, input: Pick<ExtractTaskInput, 'chunk' | 'id_seed'>) {
  const numbered = numberBlocks(blocks);
  const chunks = buildChunks(
    numbered.map((b) => ({ block_id: b.block_id, type: b.type, text: b.text, page: b.page, heading_level: b.heading_level ?? null })),
    { ...input.chunk, id_seed: input.id_seed },
  );
  return { document, blocks: numbered, chunks };
}

export function extract(input: ExtractTaskInput): Out<'extract'> {
  return task(async () => numberAndChunk(await extractDocument(input.path, input.format, { onProgress: reporter(input.progressPort) }), input), input.progressPort);
}

export function pdfInfo(input: TaskMap['pdfInfo']['input']): Out<'pdfInfo'> {
  return task(async () => info(new Uint8Array(await readFile(input.path))));
}

export function pdfPages(input: TaskMap['pdfPages']['input']): Out<'pdfPages'> {
  return task(
    async () => readPdfPages(new Uint8Array(await readFile(input.path)), { from: input.from, to: input.to }, { onProgress: reporter(input.progressPort) }),
    input.progressPort,
  );
}

export function assemblePdf(input: TaskMap['assemblePdf']['input']): Out<'assemblePdf'> {
  return task(async () => numberAndChunk(assemble(input.parts), input));
}

export function chunk(input: ChunkTaskInput): Out<'chunk'> {
  return task(async () => buildChunks(input.blocks, input.options));
}
