ALTER TABLE `bot_messages` ADD `rating` text;--> statement-breakpoint
ALTER TABLE `bot_messages` ADD `rating_note` text;--> statement-breakpoint
ALTER TABLE `bot_messages` ADD `training_job_id` text;--> statement-breakpoint
ALTER TABLE `bot_messages` ADD `trained_at` text;--> statement-breakpoint
ALTER TABLE `bot_chats` ADD `kind` text DEFAULT 'text' NOT NULL;--> statement-breakpoint
ALTER TABLE `bot_messages` ADD `images` text DEFAULT '[]' NOT NULL;
