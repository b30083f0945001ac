CREATE TABLE `conversations` (
	`conversation_id` text PRIMARY KEY NOT NULL,
	`scope` text NOT NULL,
	`job_id` text,
	`bot_id` text,
	`collection` text,
	`kind` text DEFAULT 'text' NOT NULL,
	`title` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`bot_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversations_job_idx` ON `conversations` (`job_id`);--> statement-breakpoint
CREATE INDEX `conversations_bot_idx` ON `conversations` (`bot_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`message_id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`seq` integer NOT NULL,
	`question` text NOT NULL,
	`status` text NOT NULL,
	`draft` text DEFAULT '' NOT NULL,
	`answer` text,
	`answer_format` text DEFAULT 'text' NOT NULL,
	`not_found` integer DEFAULT false NOT NULL,
	`sources` text DEFAULT '[]' NOT NULL,
	`citations` text DEFAULT '[]' NOT NULL,
	`cited_by` text,
	`web_sources` text DEFAULT '[]' NOT NULL,
	`images` text DEFAULT '[]' NOT NULL,
	`provider` text NOT NULL,
	`model` text,
	`usage` text DEFAULT '{}' NOT NULL,
	`error` text,
	`thread_id` text,
	`asked_by` text,
	`reviewer_action` text,
	`reviewer_id` text,
	`reviewed_at` text,
	`rating` text,
	`rating_note` text,
	`training_job_id` text,
	`trained_at` text,
	`idempotency_key` text,
	`created_at` text NOT NULL,
	`completed_at` text,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`conversation_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_seq_idx` ON `messages` (`conversation_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_thread_idx` ON `messages` (`thread_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_idempotency_idx` ON `messages` (`conversation_id`,`idempotency_key`);--> statement-breakpoint
INSERT INTO `conversations` (`conversation_id`, `scope`, `job_id`, `bot_id`, `collection`, `kind`, `title`, `created_by`, `created_at`, `updated_at`)
  SELECT `session_id`, 'job', `job_id`, NULL, NULL, 'text', `title`, `created_by`, `created_at`, `updated_at` FROM `chat_sessions`;--> statement-breakpoint
INSERT INTO `conversations` (`conversation_id`, `scope`, `job_id`, `bot_id`, `collection`, `kind`, `title`, `created_by`, `created_at`, `updated_at`)
  SELECT c.`chat_id`, 'bot', NULL, c.`bot_id`, NULL, c.`kind`, NULL, NULL, c.`created_at`,
    COALESCE((SELECT MAX(m.`created_at`) FROM `bot_messages` m WHERE m.`chat_id` = c.`chat_id`), c.`created_at`)
  FROM `bot_chats` c;--> statement-breakpoint
INSERT INTO `messages` (`message_id`, `conversation_id`, `seq`, `question`, `status`, `draft`, `answer`, `answer_format`, `not_found`, `sources`,
    `citations`, `cited_by`, `provider`, `model`, `usage`, `error`, `thread_id`, `asked_by`, `reviewer_action`, `reviewer_id`, `reviewed_at`,
    `idempotency_key`, `created_at`, `completed_at`)
  SELECT `turn_id`, `session_id`, `seq`, `question`, `status`, `draft`, `answer`, 'text', `not_found`, `sources`,
    `citations`, `cited_by`, `provider`, `model`, `usage`, `error`, `thread_id`, `asked_by`, `reviewer_action`, `reviewer_id`, `reviewed_at`,
    `idempotency_key`, `created_at`, `completed_at`
  FROM `chat_turns`;--> statement-breakpoint
INSERT INTO `messages` (`message_id`, `conversation_id`, `seq`, `question`, `status`, `answer`, `answer_format`, `not_found`, `citations`,
    `web_sources`, `images`, `provider`, `model`, `usage`, `error`, `rating`, `rating_note`, `training_job_id`, `trained_at`, `created_at`)
  SELECT `message_id`, `chat_id`, `seq`, `question`, `status`, `answer`, `answer_format`, `not_found`, `citations`,
    `web_sources`, `images`, `provider`, `model`, `usage`, `error`, `rating`, `rating_note`, `training_job_id`, `trained_at`, `created_at`
  FROM `bot_messages`;
