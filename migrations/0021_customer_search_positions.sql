-- The customer search index keeps term positions (FTS5's default detail), so a search is one phrase query that
-- finds exactly the customers containing the term. Without positions (0015's detail = 'none') the index could
-- only find customers holding the term's trigrams anywhere, and a term whose trigrams are common (an e-mail
-- of a numbered series) read thousands of near misses at 100,000 customers. Rebuilt from `customers` in id
-- order with its rowid keys; the triggers of 0015 write the table by name, so they keep working.
DROP TABLE `customer_search`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `customer_search` USING fts5(`customer_id` UNINDEXED, `body`, tokenize = 'trigram', columnsize = 0);
--> statement-breakpoint
INSERT INTO `customer_search` (`customer_id`, `body`)
  SELECT `id`, `platform_customer_id` || char(10) || coalesce(json_extract(`info`, '$.fullName'), '') || char(10)
    || coalesce(json_extract(`info`, '$.businessInfo.legalName'), '') || char(10) || coalesce(`email`, '')
  FROM `customers` ORDER BY `id`;
--> statement-breakpoint
DELETE FROM `customer_search_keys`;
--> statement-breakpoint
INSERT INTO `customer_search_keys` (`customer_id`, `n`) SELECT `customer_id`, `rowid` FROM `customer_search`;
