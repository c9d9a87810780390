-- GET /customers without scanning a tenant. Triggers on `customers` keep, in the statement that writes the
-- customer (API, bulk import, sandbox reset's deletes alike):
--   list_counts: 'customers' (live customers), 'customers:all' (deleted included), 'customers:INDIVIDUAL' and
--     'customers:BUSINESS' (live ones of that type);
--   customer_currencies: one row per enabled currency (the `currency` filter);
--   customer_search: an FTS5 trigram index of platformCustomerId, full name, legal name and e-mail (the
--     `search` filter), one row per customer whose rowid customer_search_keys records (a customer's rowid is
--     not stable across VACUUM or an export, so it is not used). detail = 'none' keeps no positions (about a
--     quarter of the size): a search asks for the term's trigrams and the service's rule decides.
-- Existing customers are counted, listed by currency and indexed here, in id order, before the triggers exist.
CREATE VIRTUAL TABLE `customer_search` USING fts5(`customer_id` UNINDEXED, `body`, tokenize = 'trigram', detail = 'none', columnsize = 0);
--> statement-breakpoint
CREATE TABLE `customer_search_keys` (`customer_id` text PRIMARY KEY NOT NULL, `n` integer NOT NULL) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `customer_search` (`customer_id`, `body`)
  SELECT `id`, `platform_customer_id` || char(10) || coalesce(json_extract(`info`, '$.fullName'), '') || char(10)
    || coalesce(json_extract(`info`, '$.businessInfo.legalName'), '') || char(10) || coalesce(`email`, '')
  FROM `customers` ORDER BY `id`;
--> statement-breakpoint
INSERT INTO `customer_search_keys` (`customer_id`, `n`) SELECT `customer_id`, `rowid` FROM `customer_search`;
--> statement-breakpoint
INSERT INTO `customer_currencies` (`platform_id`, `currency`, `customer_id`)
  SELECT c.`platform_id`, j.`value`, c.`id` FROM `customers` c, json_each(c.`currencies`) j WHERE true
  ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO `list_counts` (`platform_id`, `list`, `n`)
  SELECT `platform_id`, 'customers:all', count(*) FROM `customers` WHERE true GROUP BY `platform_id`
  ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = excluded.`n`;
--> statement-breakpoint
INSERT INTO `list_counts` (`platform_id`, `list`, `n`)
  SELECT `platform_id`, 'customers', count(*) FROM `customers` WHERE `is_deleted` = 0 GROUP BY `platform_id`
  ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = excluded.`n`;
--> statement-breakpoint
INSERT INTO `list_counts` (`platform_id`, `list`, `n`)
  SELECT `platform_id`, 'customers:' || `customer_type`, count(*) FROM `customers` WHERE `is_deleted` = 0
  GROUP BY `platform_id`, `customer_type`
  ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = excluded.`n`;
--> statement-breakpoint
CREATE TRIGGER `customers_after_insert` AFTER INSERT ON `customers` BEGIN
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) VALUES (NEW.`platform_id`, 'customers:all', 1)
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) SELECT NEW.`platform_id`, 'customers', 1 WHERE NEW.`is_deleted` = 0
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) SELECT NEW.`platform_id`, 'customers:' || NEW.`customer_type`, 1 WHERE NEW.`is_deleted` = 0
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + 1;
  INSERT INTO `customer_currencies` (`platform_id`, `currency`, `customer_id`)
    SELECT NEW.`platform_id`, `value`, NEW.`id` FROM json_each(NEW.`currencies`) WHERE true ON CONFLICT DO NOTHING;
  INSERT INTO `customer_search` (`customer_id`, `body`) VALUES (NEW.`id`, NEW.`platform_customer_id` || char(10)
    || coalesce(json_extract(NEW.`info`, '$.fullName'), '') || char(10)
    || coalesce(json_extract(NEW.`info`, '$.businessInfo.legalName'), '') || char(10) || coalesce(NEW.`email`, ''));
  INSERT INTO `customer_search_keys` (`customer_id`, `n`) VALUES (NEW.`id`, last_insert_rowid());
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
  DELETE FROM `customer_search` WHERE `rowid` = (SELECT `n` FROM `customer_search_keys` WHERE `customer_id` = OLD.`id`);
  DELETE FROM `customer_search_keys` WHERE `customer_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_after_update_deleted` AFTER UPDATE OF `is_deleted` ON `customers`
WHEN OLD.`is_deleted` IS NOT NEW.`is_deleted` BEGIN
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) VALUES (NEW.`platform_id`, 'customers', CASE WHEN NEW.`is_deleted` = 0 THEN 1 ELSE -1 END)
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + excluded.`n`;
  INSERT INTO `list_counts` (`platform_id`, `list`, `n`) VALUES (NEW.`platform_id`, 'customers:' || NEW.`customer_type`, CASE WHEN NEW.`is_deleted` = 0 THEN 1 ELSE -1 END)
    ON CONFLICT (`platform_id`, `list`) DO UPDATE SET `n` = `n` + excluded.`n`;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_after_update_currencies` AFTER UPDATE OF `currencies` ON `customers`
WHEN OLD.`currencies` IS NOT NEW.`currencies` BEGIN
  DELETE FROM `customer_currencies` WHERE `platform_id` = OLD.`platform_id` AND `customer_id` = OLD.`id`
    AND `currency` IN (SELECT `value` FROM json_each(OLD.`currencies`));
  INSERT INTO `customer_currencies` (`platform_id`, `currency`, `customer_id`)
    SELECT NEW.`platform_id`, `value`, NEW.`id` FROM json_each(NEW.`currencies`) WHERE true ON CONFLICT DO NOTHING;
END;
--> statement-breakpoint
CREATE TRIGGER `customers_after_update_search` AFTER UPDATE OF `platform_customer_id`, `email`, `info` ON `customers`
WHEN OLD.`platform_customer_id` IS NOT NEW.`platform_customer_id` OR OLD.`email` IS NOT NEW.`email`
  OR json_extract(OLD.`info`, '$.fullName') IS NOT json_extract(NEW.`info`, '$.fullName')
  OR json_extract(OLD.`info`, '$.businessInfo.legalName') IS NOT json_extract(NEW.`info`, '$.businessInfo.legalName') BEGIN
  UPDATE `customer_search` SET `body` = NEW.`platform_customer_id` || char(10)
    || coalesce(json_extract(NEW.`info`, '$.fullName'), '') || char(10)
    || coalesce(json_extract(NEW.`info`, '$.businessInfo.legalName'), '') || char(10) || coalesce(NEW.`email`, '')
  WHERE `rowid` = (SELECT `n` FROM `customer_search_keys` WHERE `customer_id` = NEW.`id`);
END;
