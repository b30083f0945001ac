ALTER TABLE `blocks` ADD `source` text DEFAULT 'text' NOT NULL;--> statement-breakpoint
ALTER TABLE `blocks` ADD `confidence` real;--> statement-breakpoint
ALTER TABLE `blocks` ADD `flagged` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `pages` ADD `ocr_language` text;--> statement-breakpoint
ALTER TABLE `pages` ADD `ocr_confidence` real;--> statement-breakpoint
ALTER TABLE `pages` ADD `ocr_rotation` integer;