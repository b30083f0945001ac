ALTER TABLE "api_keys" ALTER COLUMN "scope" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "blocks" ALTER COLUMN "bbox" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "blocks" ALTER COLUMN "table_grid" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "bots" ALTER COLUMN "llm" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "options" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "source" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "page_size" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "jobs" ALTER COLUMN "detected_language" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "sources" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "sources" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "citations" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "citations" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "web_sources" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "web_sources" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "images" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "images" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "usage" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "usage" SET DEFAULT '{}'::json;--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "error" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "revisions" ALTER COLUMN "before" SET DATA TYPE json;--> statement-breakpoint
ALTER TABLE "revisions" ALTER COLUMN "after" SET DATA TYPE json;