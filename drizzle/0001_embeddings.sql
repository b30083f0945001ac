CREATE TABLE `chunk_vectors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`collection` text NOT NULL,
	`key` integer NOT NULL,
	`job_id` text NOT NULL,
	`chunk_id` text NOT NULL,
	`text` text NOT NULL,
	`text_hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`collection`) REFERENCES `collections`(`name`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chunk_vectors_key_idx` ON `chunk_vectors` (`collection`,`key`);--> statement-breakpoint
CREATE UNIQUE INDEX `chunk_vectors_chunk_idx` ON `chunk_vectors` (`collection`,`job_id`,`chunk_id`);--> statement-breakpoint
CREATE INDEX `chunk_vectors_job_idx` ON `chunk_vectors` (`job_id`);--> statement-breakpoint
CREATE TABLE `collections` (
	`name` text PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`dimensions` integer NOT NULL,
	`quantization` text NOT NULL,
	`metric` text DEFAULT 'cos' NOT NULL,
	`next_key` integer DEFAULT 1 NOT NULL,
	`index_version` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `job_indexes` (
	`job_id` text PRIMARY KEY NOT NULL,
	`collection` text NOT NULL,
	`chunks_embedded` integer DEFAULT 0 NOT NULL,
	`chunks_total` integer DEFAULT 0 NOT NULL,
	`indexed_at` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`job_id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`collection`) REFERENCES `collections`(`name`) ON UPDATE no action ON DELETE cascade
);
