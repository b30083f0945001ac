-- Each chunk_vectors row says the language its text is indexed in for full text (server/store/full-text-stems.ts);
-- rows written before are given their job's detected language. Their text tables are indexed again with the
-- stems of that language at start (server/store/postgres/full-text-upgrade.ts).
ALTER TABLE "chunk_vectors" ADD COLUMN "language" text;--> statement-breakpoint
CREATE INDEX "chunk_vectors_language_idx" ON "chunk_vectors" USING btree ("collection","language");--> statement-breakpoint
UPDATE "chunk_vectors" cv SET "language" = j."detected_language"->>'code'
	FROM "jobs" j WHERE j."job_id" = cv."job_id" AND j."detected_language" IS NOT NULL;
