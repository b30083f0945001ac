CREATE TABLE `chat_sessions` (
	`session_id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`title` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chat_sessions_job_idx` ON `chat_sessions` (`job_id`);--> statement-breakpoint
CREATE TABLE `chat_turns` (
	`turn_id` text PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`question` text NOT NULL,
	`status` text NOT NULL,
	`draft` text DEFAULT '' NOT NULL,
	`answer` text,
	`not_found` integer DEFAULT false NOT NULL,
	`sources` text DEFAULT '[]' NOT NULL,
	`citations` text DEFAULT '[]' NOT NULL,
	`cited_by` text,
	`provider` text NOT NULL,
	`model` text,
	`thread_id` text,
	`asked_by` text NOT NULL,
	`reviewer_action` text,
	`reviewer_id` text,
	`reviewed_at` text,
	`usage` text DEFAULT '{}' NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`completed_at` text,
	FOREIGN KEY (`session_id`) REFERENCES `chat_sessions`(`session_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_turns_seq_idx` ON `chat_turns` (`session_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `chat_turns_thread_idx` ON `chat_turns` (`thread_id`);