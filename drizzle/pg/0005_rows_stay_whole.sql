-- A chunk's text (about 2 KB at the default chunk size) is kept whole in its row, as SQLite keeps it, rather than
-- compressed: compressing every chunk as a document is saved, and uncompressing it at every read, cost more than
-- the space saved. Rows over 8 KB are still compressed and stored aside. Blocks alike, for their longest ones.
ALTER TABLE "chunks" SET (toast_tuple_target = 8160);--> statement-breakpoint
ALTER TABLE "blocks" SET (toast_tuple_target = 8160);
