-- Keyword search finds Chinese, Japanese and Thai words: the index is given the text cut into words by ICU
-- (Intl.Segmenter), through the function lectern_full_text_words that the app registers on its connection
-- (server/store/full-text-words.ts, server/store/db.ts). The index no longer reads chunk_vectors.text itself:
-- contentless, its rows deleted by rowid (contentless_delete), so a delete never depends on cutting the old
-- text into the same words again. Every row is indexed anew here; English text is given as it was.
DROP TRIGGER `chunk_vectors_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `chunk_vectors_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `chunk_vectors_fts_update`;
--> statement-breakpoint
DROP TABLE `chunk_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `chunk_fts` USING fts5(
	`text`,
	content='',
	contentless_delete=1,
	tokenize='porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
INSERT INTO `chunk_fts`(rowid, `text`) SELECT `id`, lectern_full_text_words(`text`) FROM `chunk_vectors`;
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_insert` AFTER INSERT ON `chunk_vectors` BEGIN
	INSERT INTO `chunk_fts`(rowid, `text`) VALUES (new.`id`, lectern_full_text_words(new.`text`));
END;
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_delete` AFTER DELETE ON `chunk_vectors` BEGIN
	DELETE FROM `chunk_fts` WHERE rowid = old.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_update` AFTER UPDATE OF `text` ON `chunk_vectors` BEGIN
	DELETE FROM `chunk_fts` WHERE rowid = old.`id`;
	INSERT INTO `chunk_fts`(rowid, `text`) VALUES (new.`id`, lectern_full_text_words(new.`text`));
END;
