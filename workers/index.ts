/**
 * Piscina task module: one named export per task of `TaskMap` (server/core/tasks.ts).
 * - extract: reads the original from disk, extracts typed blocks, numbers them and chunks them, posting
 *   `ProgressMessage`s on `progressPort` after each page. Cancelled by the pool's AbortSignal, which
 *   terminates this thread.
 * - chunk: rebuilds chunks from reviewed blocks.
 * The HTTP thread never parses a document: everything that reads document bytes runs here.
 */
import { buildChunks } from '../server/core/chunking/index.js';
import { extractDocument } from '../server/core/extract/extract-document.js';
import { numberBlocks } from '../server/core/extract/number-blocks.js';
import type { ChunkTaskInput, ExtractTaskInput, ExtractTaskOutput, ProgressMessage, TaskMap } from '../server/core/tasks.js';

export async function extract(input: ExtractTaskInput): Promise<ExtractTaskOutput> {
  const port = input.progressPort;
  try {
    const { blocks, ...document } = await extractDocument(input.path, input.format, {
      onProgress: (pagesDone, totalPages) => port?.postMessage({ pagesDone, totalPages } satisfies ProgressMessage),
    });
    const numbered = numberBlocks(blocks);
    const chunks = buildChunks(
      numbered.map((b) => ({ block_id: b.block_id, type: b.type, text: b.text, page: b.page, heading_level: b.heading_level ?? null })),
      { ...input.chunk, id_seed: input.id_seed },
    );
    return { document, blocks: numbered, chunks };
  } catch (err) {
    // Only name, message and stack of an Error survive the trip to the main thread: send the code as data.
    const e = err as { code?: unknown; message?: unknown };
    throw { code: typeof e?.code === 'string' ? e.code : 'EXTRACTION_FAILED', message: typeof e?.message === 'string' ? e.message : String(err) };
  } finally {
    port?.close();
  }
}

export function chunk(input: ChunkTaskInput): TaskMap['chunk']['output'] {
  return buildChunks(input.blocks, input.options);
}
