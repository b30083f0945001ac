import type { Revision } from '../api/types.js';

/**
 * One card of the audit trail: the timeline of one block or chunk, or a bulk change (finalize settling
 * 312 pending chunks, a page approved at once) folded into one card instead of one card per item.
 */
export type AuditCard =
  | { kind: 'item'; entityType: string; entityId: string; revisions: Revision[] }
  | { kind: 'bulk'; action: string; entityType: string; reviewer: string; timestamp: string; revisions: Revision[] };

/** A run this long of the same change, by the same reviewer at the same instant, is one bulk change. */
const BULK_MIN = 3;

const sameBatch = (a: Revision, b: Revision) =>
  a.action === b.action &&
  a.entity_type === b.entity_type &&
  a.reviewer_id === b.reviewer_id &&
  a.timestamp === b.timestamp;

/**
 * Cards in the order of their newest change. Revisions come newest first; a bulk change writes its
 * revisions together (one transaction, one timestamp), so they sit side by side in that order.
 */
export function auditCards(revisions: readonly Revision[]): AuditCard[] {
  const cards: AuditCard[] = [];
  const byItem = new Map<string, Extract<AuditCard, { kind: 'item' }>>();
  for (let i = 0; i < revisions.length; ) {
    const first = revisions[i] as Revision;
    let end = i + 1;
    while (end < revisions.length && sameBatch(first, revisions[end] as Revision)) end++;
    if (end - i >= BULK_MIN) {
      cards.push({
        kind: 'bulk',
        action: first.action,
        entityType: first.entity_type,
        reviewer: first.reviewer_id,
        timestamp: first.timestamp,
        revisions: revisions.slice(i, end),
      });
    } else {
      for (const r of revisions.slice(i, end)) {
        const key = `${r.entity_type} ${r.entity_id}`;
        const card = byItem.get(key);
        if (card) card.revisions.push(r);
        else {
          const fresh = { kind: 'item' as const, entityType: r.entity_type, entityId: r.entity_id, revisions: [r] };
          byItem.set(key, fresh);
          cards.push(fresh);
        }
      }
    }
    i = end;
  }
  return cards;
}

const PHRASES: Record<string, string> = {
  approved: 'approved',
  edited: 'edited',
  rejected: 'rejected',
  pending: 'set back to pending',
  auto_approved: 'auto-approved at finalize',
  auto_rejected: 'auto-rejected at finalize',
  undo: 'undone',
  rechunk: 'rebuilt',
  reocr: 're-read by OCR',
  split: 'split',
  merge: 'merged',
  move: 'moved',
  finalize: 'finalized',
};

/** An action as people say it: "auto-approved at finalize", "set back to pending". */
export const actionPhrase = (action: string): string => PHRASES[action] ?? action.replace(/_/g, ' ');

/** "312 chunks auto-approved at finalize"; "30 blocks approved at once". */
export function bulkTitle(card: Extract<AuditCard, { kind: 'bulk' }>, more: boolean): string {
  const n = card.revisions.length;
  const what = `${n}${more ? '+' : ''} ${card.entityType}${n === 1 ? '' : 's'}`;
  const auto = card.action.startsWith('auto_');
  return `${what} ${actionPhrase(card.action)}${auto ? '' : ' at once'}`;
}

/** A short line of an item's text (its first words), so a chunk is known by what it says, not by its id. */
export function itemLabel(revisions: readonly Revision[]): string {
  const text = revisions.map((r) => r.edited_text ?? r.original_text).find((t): t is string => !!t?.trim());
  if (!text) return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}
