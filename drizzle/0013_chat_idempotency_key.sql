ALTER TABLE `chat_turns` ADD `idempotency_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `chat_turns_idempotency_idx` ON `chat_turns` (`session_id`,`idempotency_key`);