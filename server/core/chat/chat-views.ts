import type { ConversationRecord, MessageRecord } from '../conversations/conversations.js';
import type { ChatSourceRow } from '../../store/repos/conversations-repo.js';

/** Jobs-chat citations as the jobs API gives them: the source's label, chunk and pages. */
export type TurnCitation = { label: string; chunk_id: string; page_numbers: number[] };

/** A message -> the API's shape. `sources` keeps LongParser's fields (chunk_id, score, text, page_numbers). */
export function sourceView(s: ChatSourceRow) {
  return {
    label: s.label,
    chunk_id: s.chunk_id,
    score: s.score,
    text: s.text,
    page_numbers: s.page_numbers,
    section_path: s.section_path,
  };
}

export function turnView(t: MessageRecord) {
  return {
    turn_id: t.message_id,
    seq: t.seq,
    question: t.question,
    status: t.status,
    answer: t.answer,
    draft: t.draft,
    not_found: t.not_found,
    sources: t.sources.map(sourceView),
    citations: t.citations as TurnCitation[],
    cited_by: t.cited_by,
    llm_provider: t.provider,
    llm_model: t.model,
    thread_id: t.thread_id,
    asked_by: t.asked_by ?? '',
    review: t.reviewer_action
      ? { action: t.reviewer_action, reviewer_id: t.reviewer_id ?? '', at: t.reviewed_at ?? '' }
      : null,
    rating: t.rating,
    rating_note: t.rating_note,
    usage: t.usage,
    error: t.error,
    created_at: t.created_at,
    completed_at: t.completed_at,
  };
}
export type TurnView = ReturnType<typeof turnView>;

export function sessionView(s: ConversationRecord, turns: MessageRecord[] = []) {
  return {
    session_id: s.conversation_id,
    job_id: s.job_id ?? '',
    title: s.title,
    created_by: s.created_by ?? '',
    created_at: s.created_at,
    updated_at: s.updated_at,
    turn_count: turns.length,
    turns: turns.map(turnView),
    // LongParser's name for the same list, for its clients.
    history: turns.map((t) => ({ question: t.question, answer: t.answer, status: t.status })),
  };
}
