-- Keyword search: an FTS5 index over the text each vector was embedded from (chunk_vectors.text), so
-- keyword and vector search see exactly the same chunks. External content: the text is stored once, in
-- chunk_vectors; the triggers keep the index in step, including rows removed by ON DELETE CASCADE when a
-- job or collection is deleted. Porter stemming over unicode61 (diacritics folded) for English BM25.
CREATE VIRTUAL TABLE `chunk_fts` USING fts5(
	`text`,
	content='chunk_vectors',
	content_rowid='id',
	tokenize='porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_insert` AFTER INSERT ON `chunk_vectors` BEGIN
	INSERT INTO `chunk_fts`(rowid, `text`) VALUES (new.`id`, new.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_delete` AFTER DELETE ON `chunk_vectors` BEGIN
	INSERT INTO `chunk_fts`(`chunk_fts`, rowid, `text`) VALUES ('delete', old.`id`, old.`text`);
END;
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_update` AFTER UPDATE OF `text` ON `chunk_vectors` BEGIN
	INSERT INTO `chunk_fts`(`chunk_fts`, rowid, `text`) VALUES ('delete', old.`id`, old.`text`);
	INSERT INTO `chunk_fts`(rowid, `text`) VALUES (new.`id`, new.`text`);
END;
