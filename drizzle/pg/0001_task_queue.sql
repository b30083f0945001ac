CREATE TABLE "tasks" (
	"task_id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tasks_task_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"kind" text NOT NULL,
	"job_id" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"dedupe_key" text,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"worker_id" text,
	"lease_ms" integer,
	"lease_until" timestamp with time zone,
	"progress" jsonb,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "tasks_queued_idx" ON "tasks" USING btree ("kind","task_id") WHERE state = 'queued';--> statement-breakpoint
CREATE INDEX "tasks_lease_idx" ON "tasks" USING btree ("lease_until") WHERE state = 'running';--> statement-breakpoint
CREATE INDEX "tasks_job_idx" ON "tasks" USING btree ("job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_dedupe_idx" ON "tasks" USING btree ("dedupe_key") WHERE state IN ('queued', 'running');