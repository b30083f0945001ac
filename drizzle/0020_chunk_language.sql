-- Keyword search stems in a chunk's own language (server/store/full-text-stems.ts): each chunk_vectors row says
-- the language its text is indexed in, the document's detected language, and the triggers give it to
-- lectern_full_text_words, which adds the Snowball stems of the text's words in that language. Rows written
-- before are given their job's language, and those in another language than English are indexed again; English
-- and rows of no known language keep the very entries they had.
ALTER TABLE `chunk_vectors` ADD `language` text;
--> statement-breakpoint
CREATE INDEX `chunk_vectors_language_idx` ON `chunk_vectors` (`collection`,`language`);
--> statement-breakpoint
UPDATE `chunk_vectors` SET `language` = (
	SELECT json_extract(j.`detected_language`, '$.code') FROM `jobs` j WHERE j.`job_id` = `chunk_vectors`.`job_id`
);
--> statement-breakpoint
DROP TRIGGER `chunk_vectors_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `chunk_vectors_fts_update`;
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_insert` AFTER INSERT ON `chunk_vectors` BEGIN
	INSERT INTO `chunk_fts`(rowid, `text`) VALUES (new.`id`, lectern_full_text_words(new.`text`, new.`language`));
END;
--> statement-breakpoint
CREATE TRIGGER `chunk_vectors_fts_update` AFTER UPDATE OF `text`, `language` ON `chunk_vectors` BEGIN
	DELETE FROM `chunk_fts` WHERE rowid = old.`id`;
	INSERT INTO `chunk_fts`(rowid, `text`) VALUES (new.`id`, lectern_full_text_words(new.`text`, new.`language`));
END;
--> statement-breakpoint
DELETE FROM `chunk_fts` WHERE rowid IN (
	SELECT `id` FROM `chunk_vectors` WHERE `language` IS NOT NULL AND `language` <> 'eng'
);
--> statement-breakpoint
INSERT INTO `chunk_fts`(rowid, `text`)
	SELECT `id`, lectern_full_text_words(`text`, `language`) FROM `chunk_vectors`
	WHERE `language` IS NOT NULL AND `language` <> 'eng';
