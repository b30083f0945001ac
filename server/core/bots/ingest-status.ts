/** Long-Trainer's words for where a bot's document is, derived from its job. */
export function ingestStatus(job: {
  status: string;
  source: { review?: boolean } | null;
  errorCode?: string | null;
}): 'pending' | 'processing' | 'success' | 'failed' {
  switch (job.status) {
    // Read and finalized, but its embedding failed or could not start (its error says why): a client polling
    // for success must not wait forever. `POST /bots/{id}/build` tries again.
    case 'finalized':
      return job.errorCode ? 'failed' : 'processing';
    case 'queued':
      return 'pending';
    case 'indexed':
      return 'success';
    case 'failed':
    case 'cancelled':
      return 'failed';
    // A document added for review waits for a person, not for the machine.
    case 'ready_for_review':
      return job.source?.review ? 'pending' : 'processing';
    default:
      return 'processing';
  }
}
