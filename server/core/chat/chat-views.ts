import type { SessionRow, TurnRow, TurnStatus } from './chat-store.js';

/** Row -> API shape. `sources` keeps LongParser's fields (chunk_id, score, text, page_numbers). */
export function sourceView(s: TurnRow['sources'][number]) {
  return { label: s.label, chunk_id: s.chunk_id, score: s.score, text: s.text, page_numbers: s.page_numbers, section_path: s.section_path };
}

export function turnView(t: TurnRow) {
  return {
    turn_id: t.turnId,
    seq: t.seq,
    question: t.question,
    status: t.status as TurnStatus,
    answer: t.answer,
    draft: t.draft,
    not_found: t.notFound,
    sources: t.sources.map(sourceView),
    citations: t.citations,
    cited_by: t.citedBy as 'model' | 'overlap' | null,
    llm_provider: t.provider,
    llm_model: t.model,
    thread_id: t.threadId,
    asked_by: t.askedBy,
    review: t.reviewerAction ? { action: t.reviewerAction as 'approve' | 'edit' | 'reject', reviewer_id: t.reviewerId ?? '', at: t.reviewedAt ?? '' } : null,
    usage: t.usage,
    error: t.error,
    created_at: t.createdAt,
    completed_at: t.completedAt,
  };
}
export type TurnView = ReturnType<typeof turnView>;

export function sessionView(s: SessionRow, turns: TurnRow[] = []) {
  return {
    session_id: s.sessionId,
    job_id: s.jobId,
    title: s.title,
    created_by: s.createdBy,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    turn_count: turns.length,
    turns: turns.map(turnView),
    // LongParser's name for the same list, for its clients.
    history: turns.map((t) => ({ question: t.question, answer: t.answer, status: t.status })),
  };
}
