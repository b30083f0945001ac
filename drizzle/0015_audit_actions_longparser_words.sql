-- Audit actions in LongParser's words: a review change is named by the status it left the item in
-- (approve -> approved, edit -> edited, reject -> rejected, reset -> pending; a note by the status it kept),
-- and finalize's settling of pending items as auto_approved / auto_rejected. Lectern's own actions
-- (undo, rechunk, finalize, reocr) keep their names.
UPDATE `revisions` SET `action` = COALESCE(
  json_extract(`after`, '$.status'),
  CASE `action` WHEN 'approve' THEN 'approved' WHEN 'reject' THEN 'rejected' WHEN 'reset' THEN 'pending' ELSE 'edited' END
)
WHERE `action` IN ('approve', 'edit', 'reject', 'reset', 'note', 'update');
--> statement-breakpoint
UPDATE `revisions` SET `action` = CASE `action` WHEN 'auto_approve' THEN 'auto_approved' ELSE 'auto_rejected' END
WHERE `action` IN ('auto_approve', 'auto_reject');
