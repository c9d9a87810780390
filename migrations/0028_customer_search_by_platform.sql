-- The customer search index, scoped by platform (src/customers/list.ts reads it). The trigram index of 0015/0021
-- held every platform's customers in one set of doclists: a search read the matches of every platform (its cost,
-- and the sandbox's X-D1-Rows-Read, grew with other platforms' customers, and told a platform whether another held
-- a name), and it could not serve a term under three characters. Now each indexed token carries its platform's
-- tag ('p<n>z', n from customer_search_ranges), so a search reads only its own platform's doclists:
--   customer_search        every trigram of the searched text, in order (positions kept, so a term is one phrase:
--                          exactly the texts containing it), for terms of 3 characters or more;
--   customer_search_grams  every character and pair of characters (no positions), for terms of 1 or 2.
-- The searched text is the platformCustomerId, full name, legal name and e-mail, one per line, with ASCII letters
-- in lower case (the service's rule ignores their case), padded with two line ends so each character starts a
-- trigram; a token is the tag and the hex of a piece's UTF-8 (the 'ascii' tokenizer reads nothing into it). Both
-- tables are contentless (the tokens are not kept twice). A customer's row number n is its platform's range
-- (n << 32) plus its place in it: pages follow the order customers were stored, and a cursor keeps only the place.
-- Triggers keep it in the statement that writes the customer (API, bulk import, sandbox reset and restore).
DROP TRIGGER `customers_after_insert`;
--> statement-breakpoint
DROP TRIGGER `customers_after_delete`;
--> statement-breakpoint
DROP TRIGGER `customers_after_update_search`;
--> statement-breakpoint
DROP TABLE `customer_search`;
--> statement-breakpoint
DROP TABLE `customer_search_keys`;
--> statement-breakpoint
-- 0015's triggers without the search, which has its own below.
CREATE TRIGGER `customers_after_insert` AFTER INSERT ON `customers` BEGIN
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) VALUES (NEW.`platform_id`, 'customers:all', 1)
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) SELECT NEW.`platform_id`, 'customers', 1 WHERE NEW.`is_deleted` = 0
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) SELECT NEW.`platform_id`, 'customers:' || NEW.`customer_type`, 1 WHERE NEW.`is_deleted` = 0
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `customer_currencies` (`platform_id`, `currency`, `customer_id`)
    SELECT NEW.`platform_id`, `value`, NEW.`id` FROM json_each(NEW.`currencies`) WHERE true ON CONFLICT DO NOTHING;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_after_delete` AFTER DELETE ON `customers` BEGIN
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) VALUES (OLD.`platform_id`, 'customers:all', -1)
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` - 1;
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) SELECT OLD.`platform_id`, 'customers', -1 WHERE OLD.`is_deleted` = 0
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` - 1;
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) SELECT OLD.`platform_id`, 'customers:' || OLD.`customer_type`, -1 WHERE OLD.`is_deleted` = 0
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` - 1;
  DELETE FROM `customer_currencies` WHERE `platform_id` = OLD.`platform_id` AND `customer_id` = OLD.`id`
    AND `currency` IN (SELECT `value` FROM json_each(OLD.`currencies`));
END;
--> statement-breakpoint
-- Each platform's range (n) and the last place given in it (next).
CREATE TABLE `customer_search_ranges` (
  `platform_id` text PRIMARY KEY NOT NULL,
  `n` integer NOT NULL UNIQUE,
  `next` integer NOT NULL DEFAULT 0
) WITHOUT ROWID;
--> statement-breakpoint
-- A customer's row number in both indexes (an INTEGER PRIMARY KEY: stable, unlike a table's own rowid).
CREATE TABLE `customer_search_rows` (`n` integer PRIMARY KEY NOT NULL, `customer_id` text NOT NULL UNIQUE);
--> statement-breakpoint
-- The tokens of each indexed customer: `positions` is a JSON array with one element per character of the text.
CREATE VIEW `customer_search_tokens` AS
SELECT `id`, `n`,
  (SELECT group_concat(`tag` || hex(substr(`body`, `key` + 1, 3)), ' ' ORDER BY `key`) FROM json_each(`positions`)) AS `trigrams`,
  (SELECT group_concat(`tag` || hex(substr(`body`, `key` + 1, 1)) || ' ' || `tag` || hex(substr(`body`, `key` + 1, 2)), ' ' ORDER BY `key`)
    FROM json_each(`positions`)) AS `grams`
FROM (
  SELECT `id`, `n`, `tag`, `body`, '[' || substr(replace(hex(zeroblob(length(`body`) - 2)), '00', ',0'), 2) || ']' AS `positions`
  FROM (
    SELECT r.`customer_id` AS `id`, r.`n`, 'p' || (r.`n` >> 32) || 'z' AS `tag`,
      lower(c.`platform_customer_id` || char(10) || coalesce(json_extract(c.`info`, '$.fullName'), '') || char(10)
        || coalesce(json_extract(c.`info`, '$.businessInfo.legalName'), '') || char(10) || coalesce(c.`email`, '')) || char(10, 10) AS `body`
    FROM `customer_search_rows` r JOIN `customers` c ON c.`id` = r.`customer_id`
  )
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `customer_search` USING fts5(`trigrams`, tokenize = 'ascii', content = '', contentless_delete = 1);
--> statement-breakpoint
CREATE VIRTUAL TABLE `customer_search_grams` USING fts5(`grams`, tokenize = 'ascii', detail = 'none', content = '', contentless_delete = 1);
--> statement-breakpoint
-- The customers already there, in id order within their platform.
INSERT INTO `customer_search_ranges` (`platform_id`, `n`, `next`)
  SELECT p.`id`, row_number() OVER (ORDER BY p.`id`), (SELECT count(*) FROM `customers` c WHERE c.`platform_id` = p.`id`)
  FROM `platforms` p WHERE true;
--> statement-breakpoint
INSERT INTO `customer_search_rows` (`n`, `customer_id`)
  SELECT (r.`n` << 32) + row_number() OVER (PARTITION BY c.`platform_id` ORDER BY c.`id`), c.`id`
  FROM `customers` c JOIN `customer_search_ranges` r ON r.`platform_id` = c.`platform_id` WHERE true;
--> statement-breakpoint
INSERT INTO `customer_search` (`rowid`, `trigrams`) SELECT `n`, `trigrams` FROM `customer_search_tokens` WHERE true;
--> statement-breakpoint
INSERT INTO `customer_search_grams` (`rowid`, `grams`) SELECT `n`, `grams` FROM `customer_search_tokens` WHERE true;
--> statement-breakpoint
CREATE TRIGGER `platforms_search_range` AFTER INSERT ON `platforms` BEGIN
  INSERT INTO `customer_search_ranges` (`platform_id`, `n`) SELECT NEW.`id`, coalesce(max(`n`), 0) + 1 FROM `customer_search_ranges`;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_search_insert` AFTER INSERT ON `customers` BEGIN
  UPDATE `customer_search_ranges` SET `next` = `next` + 1 WHERE `platform_id` = NEW.`platform_id`;
  INSERT INTO `customer_search_rows` (`n`, `customer_id`)
    SELECT (`n` << 32) + `next`, NEW.`id` FROM `customer_search_ranges` WHERE `platform_id` = NEW.`platform_id`;
  INSERT INTO `customer_search` (`rowid`, `trigrams`) SELECT `n`, `trigrams` FROM `customer_search_tokens` WHERE `id` = NEW.`id`;
  INSERT INTO `customer_search_grams` (`rowid`, `grams`) SELECT `n`, `grams` FROM `customer_search_tokens` WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_search_delete` AFTER DELETE ON `customers` BEGIN
  DELETE FROM `customer_search` WHERE `rowid` = (SELECT `n` FROM `customer_search_rows` WHERE `customer_id` = OLD.`id`);
  DELETE FROM `customer_search_grams` WHERE `rowid` = (SELECT `n` FROM `customer_search_rows` WHERE `customer_id` = OLD.`id`);
  DELETE FROM `customer_search_rows` WHERE `customer_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_search_update` AFTER UPDATE OF `platform_customer_id`, `email`, `info` ON `customers`
WHEN OLD.`platform_customer_id` IS NOT NEW.`platform_customer_id` OR OLD.`email` IS NOT NEW.`email`
  OR json_extract(OLD.`info`, '$.fullName') IS NOT json_extract(NEW.`info`, '$.fullName')
  OR json_extract(OLD.`info`, '$.businessInfo.legalName') IS NOT json_extract(NEW.`info`, '$.businessInfo.legalName') BEGIN
  DELETE FROM `customer_search` WHERE `rowid` = (SELECT `n` FROM `customer_search_rows` WHERE `customer_id` = NEW.`id`);
  DELETE FROM `customer_search_grams` WHERE `rowid` = (SELECT `n` FROM `customer_search_rows` WHERE `customer_id` = NEW.`id`);
  INSERT INTO `customer_search` (`rowid`, `trigrams`) SELECT `n`, `trigrams` FROM `customer_search_tokens` WHERE `id` = NEW.`id`;
  INSERT INTO `customer_search_grams` (`rowid`, `grams`) SELECT `n`, `grams` FROM `customer_search_tokens` WHERE `id` = NEW.`id`;
END;
