DROP TABLE `bot_messages`;--> statement-breakpoint
DROP TABLE `bot_chats`;--> statement-breakpoint
DROP TABLE `chat_turns`;--> statement-breakpoint
DROP TABLE `chat_sessions`;
