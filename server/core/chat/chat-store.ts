import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { chatSessions, chatTurns } from '../../../drizzle/schema.js';
import type { Db } from '../../store/db.js';
import { AppError } from '../errors.js';

export type SessionRow = typeof chatSessions.$inferSelect;
export type TurnRow = typeof chatTurns.$inferSelect;
export type NewTurn = Omit<typeof chatTurns.$inferInsert, 'seq'>;

export const TURN_STATUSES = ['complete', 'pending_review', 'rejected', 'cancelled', 'failed'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/** Sessions and turns in SQLite; every write is one statement or one transaction. */
export function createChatStore(db: Db) {
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
      return db.select().from(chatTurns).where(eq(chatTurns.sessionId, sessionId)).orderBy(asc(chatTurns.seq)).all();
    },

    /** Earlier answers a reader has (complete, approved or edited), oldest first, for follow-up questions. */
    answeredTurns(sessionId: string): TurnRow[] {
      return this.turns(sessionId).filter((t) => t.status === 'complete' && t.answer && !t.notFound);
    },

    addTurn(turn: NewTurn): TurnRow {
      return db.transaction((tx) => {
        tx.insert(chatTurns)
          .values({ ...turn, seq: sql`(SELECT COALESCE(MAX(seq), 0) + 1 FROM chat_turns WHERE session_id = ${turn.sessionId})` })
          .run();
        tx.update(chatSessions).set({ updatedAt: turn.createdAt }).where(eq(chatSessions.sessionId, turn.sessionId)).run();
        return tx.select().from(chatTurns).where(eq(chatTurns.turnId, turn.turnId)).get()!;
      });
    },

    turnByThread(threadId: string): TurnRow | undefined {
      return db.select().from(chatTurns).where(eq(chatTurns.threadId, threadId)).get();
    },

    /**
     * Finishes a pending turn; false when it is no longer pending (resumed by someone else meanwhile),
     * so two reviewers resuming at once cannot both win.
     */
    resolvePending(turnId: string, set: Partial<TurnRow>): boolean {
      const res = db
        .update(chatTurns)
        .set(set)
        .where(and(eq(chatTurns.turnId, turnId), eq(chatTurns.status, 'pending_review')))
        .run();
      return res.changes === 1;
    },

    turn(turnId: string): TurnRow {
      return db.select().from(chatTurns).where(eq(chatTurns.turnId, turnId)).get()!;
    },
  };
}
export type ChatStore = ReturnType<typeof createChatStore>;
