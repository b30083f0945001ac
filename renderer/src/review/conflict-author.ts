import type { Api } from '../api/client.js';
import type { Revision } from '../api/types.js';

/** Who made an item's current version, and when. */
export interface ChangeAuthor {
  reviewer: string;
  at: string;
}

/**
 * The reviewer behind an item's current version, read from its newest revisions (a 409 carries the
 * item, not who changed it). Undefined when the audit cannot say: the dialog then names nobody.
 */
export async function changeAuthor(
  api: Api,
  jobId: string,
  entityId: string,
  revisionId: string | null,
): Promise<ChangeAuthor | undefined> {
  try {
    const page = await api.getPage<Revision>(
      `/jobs/${encodeURIComponent(jobId)}/audit?entity_id=${encodeURIComponent(entityId)}&limit=5`,
    );
    const rev = page.items.find((r) => r.revision_id === revisionId) ?? (revisionId ? undefined : page.items[0]);
    return rev ? { reviewer: rev.reviewer_id, at: rev.timestamp } : undefined;
  } catch {
    return undefined;
  }
}
