CREATE TABLE `bot_chats` (
	`chat_id` text PRIMARY KEY NOT NULL,
	`bot_id` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`bot_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `bot_chats_bot_idx` ON `bot_chats` (`bot_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `bot_messages` (
	`message_id` text PRIMARY KEY NOT NULL,
	`chat_id` text NOT NULL,
	`seq` integer NOT NULL,
	`question` text NOT NULL,
	`status` text NOT NULL,
	`answer` text DEFAULT '' NOT NULL,
	`answer_format` text DEFAULT 'text' NOT NULL,
	`not_found` integer DEFAULT false NOT NULL,
	`citations` text DEFAULT '[]' NOT NULL,
	`web_sources` text DEFAULT '[]' NOT NULL,
	`provider` text NOT NULL,
	`model` text,
	`usage` text DEFAULT '{}' NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`chat_id`) REFERENCES `bot_chats`(`chat_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bot_messages_seq_idx` ON `bot_messages` (`chat_id`,`seq`);--> statement-breakpoint
CREATE TABLE `bots` (
	`bot_id` text PRIMARY KEY NOT NULL,
	`name` text,
	`prompt_template` text NOT NULL,
	`llm` text NOT NULL,
	`embedding_model` text NOT NULL,
	`top_k` integer NOT NULL,
	`min_similarity` real NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `jobs` ADD `bot_id` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `source` text;--> statement-breakpoint
CREATE INDEX `jobs_bot_idx` ON `jobs` (`bot_id`);