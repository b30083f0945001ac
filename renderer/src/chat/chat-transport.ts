import type { ConversationSummary } from '../api/types.js';
import type { LiveTurn, TurnParts } from './turn-view.js';

export type Rating = 'up' | 'down';
export type ResumeAction = 'approve' | 'edit' | 'reject';

/** What the panel itself needs to know of a stored turn, whatever chat it comes from. */
export interface TurnFacts {
  id: string;
  question: string;
  /** The text shown: the answer, or the draft of one held for approval. */
  answer: string;
  status: string;
  notFound: boolean;
  error: string | null;
  rating: Rating | null;
  /** Set while the answer is held for approval (`require_approval`). */
  threadId: string | null;
  review: { action: ResumeAction; reviewer_id: string } | null;
  /** A vision question's images, by name (the files themselves are not kept). */
  images: { name: string }[];
}

/** A question as the composer gives it. */
export interface Question {
  text: string;
  /** Hold the answer for approval. */
  hold: boolean;
}

/**
 * How one kind of chat reaches the server: a job's chat sessions or a bot's chats. The panel, the
 * conversation list and the turn view are the same for both; `T` is the turn as this chat's routes give it.
 */
export interface ChatTransport<T> {
  /** Written on the panel (`data-chat`) and in its class, so each chat can be styled and found. */
  readonly kind: 'job' | 'bot';
  readonly placeholder: string;
  /** Composer controls of this chat (the answer provider; images to ask about), beside Ask. */
  readonly controls: Node[];
  /** Anything above the question box (the images waiting to go with the next question). */
  readonly tray: Node | null;
  /** Asking with an empty question box: a reason to show, or null to do nothing. */
  emptyQuestion(): string | null;
  /** The owner's conversations. */
  list(signal: AbortSignal): Promise<ConversationSummary[]>;
  /** A conversation's turns, oldest first. */
  history(conversationId: string, signal: AbortSignal): Promise<T[]>;
  /** Makes a new conversation on the server for the next question (of the kind that question needs); its id. */
  start(signal: AbortSignal): Promise<string>;
  /**
   * Asks `q` in a conversation, the answer written into `live` as it arrives. Resolves with the stored turn,
   * undefined when the answer broke off (`live` says why).
   */
  ask(conversationId: string, q: Question, live: LiveTurn, signal: AbortSignal): Promise<T | undefined>;
  /** The next question cannot be asked in `open` (images, in a bot's text chat): it starts a new conversation. */
  needsNew(open: ConversationSummary): string | null;
  facts(turn: T): TurnFacts;
  /** The turn's sources or citations, and links in its answer to them. */
  showSources(turn: T, parts: TurnParts): void;
  /** Null where the server takes no ratings. */
  rate: ((conversationId: string, turnId: string, rating: Rating) => Promise<void>) | null;
  /** Null where the server cannot finish held answers. */
  resume: ((conversationId: string, threadId: string, action: ResumeAction, edited?: string) => Promise<T>) | null;
  /**
   * A question that failed for want of its model may also be answered another way (the job's extractive
   * reader): a button for that, or null.
   */
  instead?(again: () => void): HTMLElement | null;
  /** Wires what the panel takes beyond typed questions (images dropped or pasted); `notify` writes under the question box. */
  attach?(panel: HTMLElement, notify: (text: string) => void): void;
}
