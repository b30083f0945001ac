CREATE TABLE `blocks` (
	`job_id` text NOT NULL,
	`block_id` text NOT NULL,
	`order_index` integer NOT NULL,
	`page` integer NOT NULL,
	`type` text NOT NULL,
	`text` text NOT NULL,
	`bbox` text,
	`heading_level` integer,
	`indent_level` integer,
	`hierarchy_path` text NOT NULL,
	`table_grid` text,
	`language` text,
	`status` text DEFAULT 'pending' NOT NULL,
	`edited_text` text,
	`edited_type` text,
	`reviewer_note` text,
	`version` integer DEFAULT 1 NOT NULL,
	`current_revision_id` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`job_id`, `block_id`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `blocks_order_idx` ON `blocks` (`job_id`,`order_index`);--> statement-breakpoint
CREATE INDEX `blocks_page_idx` ON `blocks` (`job_id`,`page`);--> statement-breakpoint
CREATE TABLE `chunks` (
	`job_id` text NOT NULL,
	`chunk_id` text NOT NULL,
	`order_index` integer NOT NULL,
	`text` text NOT NULL,
	`token_count` integer NOT NULL,
	`chunk_type` text NOT NULL,
	`section_path` text NOT NULL,
	`page_numbers` text NOT NULL,
	`block_ids` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`edited_text` text,
	`reviewer_note` text,
	`stale` integer DEFAULT false NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`current_revision_id` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	PRIMARY KEY(`job_id`, `chunk_id`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chunks_order_idx` ON `chunks` (`job_id`,`order_index`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`job_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`source_file` text NOT NULL,
	`format` text NOT NULL,
	`file_hash` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`total_pages` integer DEFAULT 0 NOT NULL,
	`pages_done` integer DEFAULT 0 NOT NULL,
	`total_blocks` integer DEFAULT 0 NOT NULL,
	`total_chunks` integer DEFAULT 0 NOT NULL,
	`title` text,
	`options` text NOT NULL,
	`warnings` text DEFAULT '[]' NOT NULL,
	`error_code` text,
	`error_message` text,
	`finalize_policy` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`started_at` text,
	`finished_at` text,
	`finalized_at` text
);
--> statement-breakpoint
CREATE INDEX `jobs_status_idx` ON `jobs` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `pages` (
	`job_id` text NOT NULL,
	`page` integer NOT NULL,
	`width` real NOT NULL,
	`height` real NOT NULL,
	`needs_ocr` integer NOT NULL,
	PRIMARY KEY(`job_id`, `page`),
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `revisions` (
	`revision_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`job_id` text NOT NULL,
	`entity_type` text NOT NULL,
	`entity_id` text NOT NULL,
	`previous_revision_id` text,
	`action` text NOT NULL,
	`before` text,
	`after` text,
	`original_text` text,
	`edited_text` text,
	`edited_type` text,
	`reviewer_id` text NOT NULL,
	`reviewer_note` text,
	`timestamp` text NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `revisions_seq_idx` ON `revisions` (`seq`);--> statement-breakpoint
CREATE INDEX `revisions_job_idx` ON `revisions` (`job_id`,`seq`);--> statement-breakpoint
CREATE INDEX `revisions_entity_idx` ON `revisions` (`job_id`,`entity_type`,`entity_id`);