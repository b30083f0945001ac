-- A collection is re-embedded with another model beside its index (collection_reindexes), then switched to the
-- new one at once: collections.vector_index names the index its vectors are kept under when not its own name.
CREATE TABLE `collection_reindexes` (
	`reindex_id` text PRIMARY KEY NOT NULL,
	`collection` text NOT NULL,
	`provider` text NOT NULL,
	`base_url` text,
	`model` text NOT NULL,
	`dimensions` integer NOT NULL,
	`from_index` text,
	`vector_index` text NOT NULL,
	`state` text NOT NULL,
	`chunks_done` integer DEFAULT 0 NOT NULL,
	`chunks_total` integer DEFAULT 0 NOT NULL,
	`error_code` text,
	`error_message` text,
	`drop_index` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`collection`) REFERENCES `collections`(`name`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collection_reindexes_running_idx` ON `collection_reindexes` (`collection`) WHERE state = 'running';--> statement-breakpoint
CREATE INDEX `collection_reindexes_collection_idx` ON `collection_reindexes` (`collection`,`created_at`);--> statement-breakpoint
ALTER TABLE `collections` ADD `vector_index` text;
