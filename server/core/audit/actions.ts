/**
 * Audit actions. A review change is named in LongParser's words: the review status it left the item in
 * (LongParser writes `action = status`), so a note alone is named by the status it kept. Changes
 * LongParser has no word for keep Lectern's names; finalize's settling of pending items is told apart
 * from a person's decision.
 */
export const AUDIT_ACTIONS = [
  'approved',
  'edited',
  'rejected',
  'pending',
  'auto_approved',
  'auto_rejected',
  'undo',
  'rechunk',
  'finalize',
  'reocr',
  'split',
  'merge',
  'move',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Lectern's earlier spellings, still accepted by the audit filter (migration 0013 rewrote stored ones). */
const EARLIER: Record<string, AuditAction> = {
  approve: 'approved',
  edit: 'edited',
  reject: 'rejected',
  reset: 'pending',
  auto_approve: 'auto_approved',
  auto_reject: 'auto_rejected',
};

/** The action of a review change: the status it leaves the block or chunk in. */
export function reviewAction(after: string): AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(after) ? (after as AuditAction) : 'edited';
}

/** An action named in a filter, in today's words. */
export const currentActionName = (name: string): string => EARLIER[name] ?? name;
