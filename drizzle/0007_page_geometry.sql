ALTER TABLE `jobs` ADD `page_size` text;--> statement-breakpoint
ALTER TABLE `pages` ADD `rotation` integer;--> statement-breakpoint
-- Jobs read before this migration: their most common page size from their page rows (flow formats store 0 x 0: none).
UPDATE `jobs` SET `page_size` = (
	SELECT json_object('width', `width`, 'height', `height`, 'pages', count(*)) FROM `pages`
	WHERE `pages`.`job_id` = `jobs`.`job_id` AND `width` > 0 AND `height` > 0
	GROUP BY `width`, `height` ORDER BY count(*) DESC, min(`page`) LIMIT 1
);
