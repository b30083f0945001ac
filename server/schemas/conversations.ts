import { Type } from 'typebox';
import { CONVERSATION_SCOPES } from '../store/repos/conversations-repo.js';
import { Nullable, StringEnum } from './common.js';

export const ConversationParams = Type.Object({ conversation_id: Type.String() });
export const ConversationSummary = Type.Object({
  conversation_id: Type.String({ description: 'The session_id of a job chat, the chat_id of a bot chat' }),
  scope: StringEnum(CONVERSATION_SCOPES),
  job_id: Nullable(Type.String()),
  bot_id: Nullable(Type.String()),
  kind: StringEnum(['text', 'vision'] as const),
  title: Nullable(Type.String()),
  created_by: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String({ description: 'When its last message was asked, or it was renamed' }),
  message_count: Type.Integer(),
});
export const ConversationList = Type.Object({
  conversations: Type.Array(ConversationSummary, { description: 'Oldest first' }),
});
export const RenameBody = Type.Object(
  { title: Nullable(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);
export const ConversationDeleted = Type.Object({ status: Type.Literal('deleted'), conversation_id: Type.String() });
