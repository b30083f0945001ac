import { ApiError } from '../api/client.js';
import type { FinalizePolicy, Job } from '../api/types.js';
import { label } from '../ui/format.js';
import { errorText } from '../ui/toast.js';

type Review = NonNullable<Job['review']>;

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** "a", "a and b", "a, b and c". */
function listing(parts: string[]): string {
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}` : (parts[0] ?? '');
}

function pendingParts(r: Review): string[] {
  return [
    r.blocks.pending ? count(r.blocks.pending, 'pending block') : '',
    r.chunks.pending ? count(r.chunks.pending, 'pending chunk') : '',
  ].filter(Boolean);
}

const staleNote = (r: Review) =>
  r.chunks.stale
    ? ` ${count(r.chunks.stale, 'stale chunk')} ${r.chunks.stale === 1 ? 'is' : 'are'} rebuilt first.`
    : '';

/**
 * The policies offered, the one that settles nothing first. It is the default because it is the only one
 * that decides nothing for the reviewer: it approves and rejects nothing nobody looked at, and with
 * nothing pending it finalizes just as the others do. (The server's own default when a request names no
 * policy, `auto_reject_pending`, silently drops what is unreviewed; the desk always names one.)
 */
export const POLICIES: { value: FinalizePolicy; title: string; effect(r: Review): string }[] = [
  {
    value: 'require_all_approved',
    title: 'Refuse while anything is pending',
    effect: (r) => {
      const open = [...pendingParts(r), r.chunks.stale ? count(r.chunks.stale, 'stale chunk') : ''].filter(Boolean);
      return open.length
        ? `Changes nothing. Refused now: ${listing(open)} must be reviewed first.`
        : 'Nothing is pending: review closes as it stands, nothing is changed.';
    },
  },
  {
    value: 'auto_reject_pending',
    title: 'Reject everything still pending',
    effect: (r) => {
      if (!r.blocks.pending && !r.chunks.pending)
        return `Nothing is pending: review closes as it stands.${staleNote(r)}`;
      const blocks = r.blocks.pending
        ? `Rejects ${count(r.blocks.pending, 'pending block')}: their text leaves the chunks and the export.`
        : '';
      const chunks = r.chunks.pending
        ? ` ${count(r.chunks.pending, 'pending chunk')} follow their blocks: approved when every block is approved or edited, otherwise rejected.`
        : '';
      return `${blocks}${chunks}${staleNote(r)}`.trim();
    },
  },
  {
    value: 'auto_approve_pending',
    title: 'Approve everything still pending',
    effect: (r) => {
      const parts = pendingParts(r);
      if (!parts.length) return `Nothing is pending: review closes as it stands.${staleNote(r)}`;
      return `Approves ${listing(parts)} that nobody reviewed, as they were extracted.${staleNote(r)}`;
    },
  },
];

/** A policy as the desk names it ("Refuse while anything is pending"), or its value in words. */
export const policyTitle = (policy: string): string => POLICIES.find((p) => p.value === policy)?.title ?? label(policy);

/** What a policy will do to this job, or a plain word when the server does not report review counts. */
export function policyEffect(policy: FinalizePolicy, job: Job): string {
  const p = POLICIES.find((x) => x.value === policy);
  if (!p) return '';
  return job.review ? p.effect(job.review) : p.title;
}

/** A refused or failed finalize as a sentence: the counts of a PENDING_ITEMS refusal, never its JSON. */
export function finalizeErrorText(err: unknown): string {
  if (err instanceof ApiError && err.code === 'PENDING_ITEMS') {
    const d = (err.details ?? {}) as { pending_blocks?: number; pending_chunks?: number; stale_chunks?: number };
    const pending = [
      d.pending_blocks ? count(d.pending_blocks, 'block') : '',
      d.pending_chunks ? count(d.pending_chunks, 'chunk') : '',
    ].filter(Boolean);
    const what = [
      pending.length
        ? `${listing(pending)} ${(d.pending_blocks ?? 0) + (d.pending_chunks ?? 0) === 1 ? 'is' : 'are'} still pending`
        : '',
      d.stale_chunks
        ? `${count(d.stale_chunks, 'chunk')} ${d.stale_chunks === 1 ? 'is' : 'are'} stale (Rechunk on the Chunks screen rebuilds ${d.stale_chunks === 1 ? 'it' : 'them'})`
        : '',
    ].filter(Boolean);
    return `Not finalized: ${what.length ? listing(what) : 'items are still pending'}. Review them, or choose a policy that settles what is pending.`;
  }
  if (err instanceof ApiError && err.code === 'INVALID_STATE') {
    const status = (err.details as { status?: string } | undefined)?.status;
    return `Not finalized: the job is ${status ? label(status) : 'not ready for review'}; only a job ready for review can be finalized.`;
  }
  return `Finalize failed: ${errorText(err)}`;
}
