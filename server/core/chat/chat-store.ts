import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { chatSessions, chatTurns } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import { AppError } from '../errors.js';
import { openFields, sealFields, type ChatCipher } from './chat-cipher.js';

export type SessionRow = typeof chatSessions.$inferSelect;
export type TurnRow = typeof chatTurns.$inferSelect;
export type NewTurn = Omit<typeof chatTurns.$inferInsert, 'seq'>;

export const TURN_STATUSES = ['complete', 'pending_review', 'rejected', 'cancelled', 'failed'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/** The words of a turn a person asked or was answered with: sealed at rest when encrypt_chats is on. */
const TURN_TEXT = ['question', 'draft', 'answer'] as const;

/**
 * Sessions and turns in SQLite; every write is one statement or one transaction. Turns' words are sealed
 * on the way in and opened on the way out, so nothing above this store sees a sealed text.
 */
export function createChatStore(db: Db, cipher: ChatCipher) {
  const open = (row: TurnRow | undefined): TurnRow | undefined => (row ? openFields(cipher, row, TURN_TEXT) : row);
  return {
    createSession(jobId: string, title: string | null, by: string, at: string): SessionRow {
      const row = { sessionId: randomUUID(), jobId, title, createdBy: by, createdAt: at, updatedAt: at };
      db.insert(chatSessions).values(row).run();
      return row;
    },

    session(sessionId: string): SessionRow {
      const row = db.select().from(chatSessions).where(eq(chatSessions.sessionId, sessionId)).get();
      if (!row) throw new AppError('SESSION_NOT_FOUND', `chat session ${sessionId} does not exist`);
      return row;
    },

    turns(sessionId: string): TurnRow[] {
      return db.select().from(chatTurns).where(eq(chatTurns.sessionId, sessionId)).orderBy(asc(chatTurns.seq)).all().map((t) => open(t)!);
    },

    /** Earlier answers a reader has (complete, approved or edited), oldest first, for follow-up questions. */
    answeredTurns(sessionId: string): TurnRow[] {
      return this.turns(sessionId).filter((t) => t.status === 'complete' && t.answer && !t.notFound);
    },

    addTurn(turn: NewTurn): TurnRow {
      return db.transaction((tx) => {
        tx.insert(chatTurns)
          .values({ ...sealFields(cipher, turn, TURN_TEXT), seq: sql`(SELECT COALESCE(MAX(seq), 0) + 1 FROM chat_turns WHERE session_id = ${turn.sessionId})` })
          .run();
        tx.update(chatSessions).set({ updatedAt: turn.createdAt }).where(eq(chatSessions.sessionId, turn.sessionId)).run();
        return open(tx.select().from(chatTurns).where(eq(chatTurns.turnId, turn.turnId)).get())!;
      });
    },

    /** The turn a session's earlier request with this idempotency_key produced (never a failed or cancelled one). */
    turnByIdempotencyKey(sessionId: string, key: string): TurnRow | undefined {
      return open(db.select().from(chatTurns).where(and(eq(chatTurns.sessionId, sessionId), eq(chatTurns.idempotencyKey, key))).get());
    },

    /** A session and its turns, gone for good (turns first: they hold its answers and sources). */
    deleteSession(sessionId: string): void {
      this.session(sessionId);
      db.transaction((tx) => {
        tx.delete(chatTurns).where(eq(chatTurns.sessionId, sessionId)).run();
        tx.delete(chatSessions).where(eq(chatSessions.sessionId, sessionId)).run();
      });
    },

    turnByThread(threadId: string): TurnRow | undefined {
      return open(db.select().from(chatTurns).where(eq(chatTurns.threadId, threadId)).get());
    },

    /**
     * Finishes a pending turn; false when it is no longer pending (resumed by someone else meanwhile),
     * so two reviewers resuming at once cannot both win.
     */
    resolvePending(turnId: string, set: Partial<TurnRow>): boolean {
      const res = db
        .update(chatTurns)
        .set(sealFields(cipher, set, TURN_TEXT))
        .where(and(eq(chatTurns.turnId, turnId), eq(chatTurns.status, 'pending_review')))
        .run();
      return res.changes === 1;
    },

    turn(turnId: string): TurnRow {
      return open(db.select().from(chatTurns).where(eq(chatTurns.turnId, turnId)).get())!;
    },
  };
}
export type ChatStore = ReturnType<typeof createChatStore>;
