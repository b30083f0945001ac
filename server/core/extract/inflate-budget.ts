/**
 * The decompression budget of the PDF a worker thread is reading: every stream pdf.js inflates is charged
 * here, and one crossing either limit fails the whole document with DECOMPRESSED_TOO_LARGE. (A DOCX's
 * members are measured before mammoth opens it, by flow/zip-guard.ts, against the same limits.)
 *
 * This is per-thread state on purpose: pdf.js inflates deep inside its own code, through the global
 * DecompressionStream (buffered-decompression.ts) or its own decoders (DecodeStream.ensureBuffer, which
 * patches/pdfjs-dist+5.6.205.patch makes call `inflateGuard` below), with no way to hand it a per-document
 * object. A thread reads one document at a time (Piscina gives a thread one task at a time), and every task
 * starts a budget of its own. pdf.js swallows most errors of a content stream (the page just loses its
 * text), so a crossing is also remembered and `assertInflateBudget` raises it again after each page.
 */
import { formatBytes, limitError, type DocumentLimits } from './limits.js';

type Limits = Pick<DocumentLimits, 'maxDecompressedBytes' | 'maxDecompressedPartBytes'>;

interface Budget {
  limits: Limits;
  used: number;
  crossed: (Error & { code: string }) | null;
}

let budget: Budget = {
  limits: { maxDecompressedBytes: Infinity, maxDecompressedPartBytes: Infinity },
  used: 0,
  crossed: null,
};

/** Starts the budget of a new document in this thread. */
export function startInflateBudget(limits: Limits): void {
  budget = { limits: { ...limits }, used: 0, crossed: null };
}

/** Narrows the document limit of this thread's budget (a reader of a share of a PDF gets its share). */
export function shareInflateBudget(readers: number): void {
  budget.limits = {
    ...budget.limits,
    maxDecompressedBytes: Math.floor(budget.limits.maxDecompressedBytes / Math.max(1, readers)),
  };
}

function cross(message: string): never {
  budget.crossed ??= limitError('DECOMPRESSED_TOO_LARGE', message);
  throw budget.crossed;
}

/** Throws the crossing this document's budget saw, if any (pdf.js may have swallowed it). */
export function assertInflateBudget(): void {
  if (budget.crossed) throw budget.crossed;
}

/** The most the next part may inflate to: the part limit, or what is left of the document's. */
export function inflateAllowance(): number {
  assertInflateBudget();
  const left = budget.limits.maxDecompressedBytes - budget.used;
  if (left <= 0) cross(documentMessage());
  return Math.min(budget.limits.maxDecompressedPartBytes, left);
}

/** Records that a part inflated to `bytes`; throws when that crosses a limit. */
export function chargeInflated(bytes: number): void {
  if (bytes > budget.limits.maxDecompressedPartBytes) cross(partMessage());
  budget.used += bytes;
  if (budget.used > budget.limits.maxDecompressedBytes) cross(documentMessage());
}

/** A part stopped at the allowance: whichever limit that was is crossed. */
export function allowanceExceeded(): never {
  const left = budget.limits.maxDecompressedBytes - budget.used;
  cross(left < budget.limits.maxDecompressedPartBytes ? documentMessage() : partMessage());
}

function partMessage(): string {
  return `a compressed part of the document inflates to more than ${formatBytes(budget.limits.maxDecompressedPartBytes)} (setting max_decompressed_part_bytes)`;
}

function documentMessage(): string {
  return `the document inflates to more than ${formatBytes(budget.limits.maxDecompressedBytes)} in all (setting max_decompressed_bytes)`;
}

/**
 * Called by pdf.js's DecodeStream.ensureBuffer (patched) when it grows a decoded stream's buffer from `had`
 * bytes to hold `requested`, with the size it means to allocate (`proposed`, a power of two): throws when
 * `requested` crosses a limit, else charges the growth and returns the size to allocate, which never goes
 * past what the limits leave.
 */
export function inflateGuard(requested: number, had: number, proposed: number): number {
  const left = inflateAllowance();
  if (requested > budget.limits.maxDecompressedPartBytes || requested - had > left) allowanceExceeded();
  const size = Math.max(requested, Math.min(proposed, budget.limits.maxDecompressedPartBytes, had + left));
  chargeInflated(size - had);
  return size;
}

/** Makes `inflateGuard` reachable from pdf.js, which knows nothing of this module (see the patch). */
export function installInflateGuard(): void {
  (globalThis as { __lecternInflateGuard?: typeof inflateGuard }).__lecternInflateGuard = inflateGuard;
}
