/**
 * Gives up a document before its worker thread reaches V8's heap limit. The pool's resourceLimits are
 * meant to end a thread that runs out of heap with ERR_WORKER_OUT_OF_MEMORY, but that is best-effort: V8
 * grants the dying thread only 16 MB more, and an allocation-heavy loop (pdf.js building the operator list
 * of a page of millions of text operators, measured here) overshoots it and aborts the whole process with
 * "FATAL ERROR: Reached heap limit" (nodejs/node#47224). So the loops that grow with a document check the
 * heap as they go: pdf.js's evaluator through its TimeSlotManager (every 100 operators; see the hunk in
 * patches/pdfjs-dist+5.6.205.patch), and the PDF reader after each stage of a page. Past the share below,
 * the document fails with OUT_OF_MEMORY, like a thread the pool saw die of it.
 *
 * Per-thread state for the same reason as inflate-budget.ts (pdf.js cannot be handed an object): a crossing
 * is remembered until the next document starts, since pdf.js swallows errors of a content stream.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Share of the thread's heap budget a PDF may fill (in a pool thread, once garbage is collected; elsewhere of
 * V8's limit, garbage included), well below the limit: a page of millions of operators grows the heap by
 * tens of MB between two checks (an array doubling). With the defaults (512 MB budget, 128 MiB parts) two
 * threads each at this share, plus the part they inflated, keep the process under 1.5 GB (1.36 GB measured
 * with the share at 0.5; a 3,000-page PDF reads in under 210 MB).
 */
export const HEAP_SHARE = 0.45;
/** Share of the heap limit a parser without checks (mammoth, htmlparser2, marked) may be expected to fill. */
const PARSE_SHARE = 0.8;

let crossed: (Error & { code: string }) | null = null;

/** This thread's heap budget in bytes (setting worker_heap_mb), when it is below V8's own limit. */
let budget: number | undefined;
let collect: (() => void) | undefined;
/**
 * The heap left by the last collection the guard asked for. Until the heap grows a tenth of the allowed
 * share past it, no other is asked for: a document living just under its share would otherwise be collected
 * at every check (a PDF of text operators took 3x as long).
 */
let collectedAt = 0;

/**
 * Measures documents against `mb` instead of V8's heap limit. The pool gives its threads a V8 limit of at
 * least 2 GB whatever the budget: under ~2 GB V8 lets the old generation grow by as little as 1.4x
 * between full collections (4x above), which cost 12-24% more CPU over the ingest bench's files at 512 MB
 * (a scratch comparison of the pool; bench/HISTORY.md, ingest, 2026-11-25, the V8 heap limit).
 * The guard then counts against the budget, collecting garbage before it calls a document too large.
 */
export function setHeapBudget(mb: number | undefined): void {
  budget = mb ? mb * 2 ** 20 : undefined;
}

/** A full collection, on demand: the heap counted against a budget must be live objects, not garbage. */
export function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/** Starts a new document in this thread. */
export function resetHeapGuard(): void {
  crossed = null;
  collectedAt = 0;
}

/** Throws OUT_OF_MEMORY once the heap is past its share of the limit, and every time after, for this document. */
export function checkHeap(): void {
  if (crossed) throw crossed;
  const stats = getHeapStatistics();
  const limit = budget ?? stats.heap_size_limit;
  const allowed = limit * HEAP_SHARE;
  let used = stats.used_heap_size;
  if (used > allowed && budget !== undefined) {
    // Past the share with garbage counted: only what survives a collection counts against the budget.
    if (used - collectedAt < allowed / 10) return;
    collectGarbage();
    used = collectedAt = getHeapStatistics().used_heap_size;
  }
  if (used > allowed) {
    crossed = Object.assign(
      new Error(
        `reading the document filled ${Math.round(used / 2 ** 20)} MB of its worker thread's ${Math.round(limit / 2 ** 20)} MB heap (setting worker_heap_mb)`,
      ),
      { code: 'OUT_OF_MEMORY' },
    );
    throw crossed;
  }
}

/**
 * Refuses, before parsing, text that the parsers would need more heap for than this thread has: they have
 * no loop to check in, and V8's own limit may take the whole process down. `bytesPerByte` is the heap a
 * parser was measured to take per byte of input (DOCX XML through mammoth ~20-30, HTML ~8, Markdown ~12).
 */
export function checkParseSize(bytes: number, bytesPerByte: number, what: string): void {
  const limit = budget ?? getHeapStatistics().heap_size_limit;
  if (bytes * bytesPerByte > limit * PARSE_SHARE) {
    throw Object.assign(
      new Error(
        `${what} (${Math.round(bytes / 2 ** 20)} MB) would need about ${Math.round((bytes * bytesPerByte) / 2 ** 20)} MB of heap to read, more than its worker thread has (${Math.round(limit / 2 ** 20)} MB, setting worker_heap_mb)`,
      ),
      { code: 'OUT_OF_MEMORY' },
    );
  }
}

/** Makes `checkHeap` reachable from pdf.js (see the patch). */
export function installHeapGuard(): void {
  (globalThis as { __lecternHeapGuard?: typeof checkHeap }).__lecternHeapGuard = checkHeap;
}
