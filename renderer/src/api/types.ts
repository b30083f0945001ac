import type { Static } from 'typebox';
import type {
  Block as BlockSchema,
  Chunk as ChunkSchema,
  FinalizePolicy as FinalizePolicySchema,
  FinalizeResult as FinalizeResultSchema,
  Job as JobSchema,
  RechunkResult as RechunkResultSchema,
  Revision as RevisionSchema,
  UploadAccepted as UploadAcceptedSchema,
} from '../../../server/schemas/jobs.js';
import type { ModelStatus as ModelStatusSchema } from '../../../server/schemas/models.js';
import type { Page as PageSchema } from '../../../server/schemas/pages.js';
import type { EmbedAccepted as EmbedAcceptedSchema } from '../../../server/schemas/embed.js';
import type { SearchResponse as SearchResponseSchema } from '../../../server/schemas/search.js';
import type { ChatAnswer as ChatAnswerSchema, Session as SessionSchema } from '../../../server/schemas/chat.js';
import type { ConversationSummary as ConversationSummarySchema } from '../../../server/schemas/conversations.js';
import type {
  BotDetail as BotDetailSchema,
  BotList as BotListSchema,
  Message as MessageSchema,
} from '../../../server/schemas/bots.js';

// The UI's types come from the server's TypeBox schemas, so a field renamed there breaks the build here.

/**
 * `index` (where and how far the job is embedded) comes only from servers that embed; `page_size` only
 * from servers that report page geometry: optional here, so the UI keeps working against older ones.
 */
export type Job = Omit<Static<typeof JobSchema>, 'page_size'> & Partial<Pick<Static<typeof JobSchema>, 'page_size'>>;
/** One page of GET /jobs/{id}/pages: its size as shown (the space of block boxes) and its turn. */
export type PageInfo = Static<typeof PageSchema>;

type OcrFields = 'confidence' | 'flagged' | 'source';
/**
 * OCR's confidence (0..100), flag and text source come only from servers with OCR: optional here, so the
 * UI keeps working against a server without them.
 */
export type Block = Omit<Static<typeof BlockSchema>, OcrFields> & Partial<Pick<Static<typeof BlockSchema>, OcrFields>>;
export type Chunk = Static<typeof ChunkSchema>;
export type Revision = Static<typeof RevisionSchema>;
export type FinalizePolicy = Static<typeof FinalizePolicySchema>;
export type FinalizeResult = Static<typeof FinalizeResultSchema>;
export type RechunkResult = Static<typeof RechunkResultSchema>;
export type UploadAccepted = Static<typeof UploadAcceptedSchema>;

export type ModelStatus = Static<typeof ModelStatusSchema>;
export interface ModelList {
  models: ModelStatus[];
}
export type EmbedAccepted = Static<typeof EmbedAcceptedSchema>;
export type SearchResponse = Static<typeof SearchResponseSchema>;
export type ChatAnswer = Static<typeof ChatAnswerSchema>;
export type ChatSession = Static<typeof SessionSchema>;
/** A stored turn of a job's chat (GET /chat/sessions/{id}). */
export type SessionTurn = ChatSession['turns'][number];
/** A past conversation of a job or a bot, as the conversation list shows it. */
export type ConversationSummary = Static<typeof ConversationSummarySchema>;

export type Bot = Static<typeof BotListSchema>['items'][number];
export type BotDetail = Static<typeof BotDetailSchema>;
export type BotDocument = BotDetail['document_list'][number];
/** A bot chat's message (text and vision chats alike): answer, citations, and a vision question's images. */
export type BotMessage = Static<typeof MessageSchema>;
export type BotCitation = BotMessage['citations'][number];

export type JobStatus = Job['status'];
export type ReviewStatus = Block['status'];
export type BlockType = Block['type'];

export interface ListPage<T> {
  items: T[];
  total: number;
  skip: number;
  limit: number;
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** GET /jobs: LongParser's {jobs, total}, with the page asked for. */
export interface JobListAnswer {
  jobs: Job[];
  total: number;
  skip: number;
  limit: number;
}
