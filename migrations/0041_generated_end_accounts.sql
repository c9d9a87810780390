-- A payment stores each account id once. The account ids of a transaction's ends, a quote's paying customer and
-- source account, and what a quote pays (account or UMA address) are generated (VIRTUAL) columns read from the
-- packed JSON ends that already name them (src/db/packed-json.ts: an accountId or umaAddress is second in its
-- shapes, a source's customerId third in shape 4 and second in shape 8; an unpacked end names them by key).
-- The stored columns stay for the rows written before, which the generated ones read first; new rows leave them
-- NULL. A quote's destination is packed from now on, so its generated columns are made again. The filters'
-- indexes move to the generated columns, keyed as in 0040 (src/db/id-key.ts). No row is rewritten: each index
-- is built in one pass, like 0040's.
DROP INDEX `transactions_source_account_idx`;--> statement-breakpoint
DROP INDEX `transactions_destination_account_idx`;--> statement-breakpoint
DROP INDEX `transactions_open_destination_idx`;--> statement-breakpoint
DROP INDEX `quotes_source_account_idx`;--> statement-breakpoint
DROP INDEX `quotes_customer_idx`;--> statement-breakpoint
DROP INDEX `quotes_receiving_account_idx`;--> statement-breakpoint
DROP INDEX `quotes_receiving_uma_idx`;--> statement-breakpoint
ALTER TABLE `quotes` DROP COLUMN `receiving_account_id`;--> statement-breakpoint
ALTER TABLE `quotes` DROP COLUMN `receiving_uma_lc`;--> statement-breakpoint
ALTER TABLE `transactions` ADD COLUMN `source_account` text GENERATED ALWAYS AS (coalesce(`source_account_id`, CASE WHEN json_type(`source`) = 'array' THEN CASE WHEN json_extract(`source`, '$[0]') IN (2, 3, 4, 5, 10, 11) THEN json_extract(`source`, '$[2]') END ELSE json_extract(`source`, '$.accountId') END)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `transactions` ADD COLUMN `destination_account` text GENERATED ALWAYS AS (coalesce(`destination_account_id`, CASE WHEN json_type(`destination`) = 'array' THEN CASE WHEN json_extract(`destination`, '$[0]') IN (2, 3, 4, 5, 10, 11) THEN json_extract(`destination`, '$[2]') END ELSE json_extract(`destination`, '$.accountId') END)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `quotes` ADD COLUMN `source_account` text GENERATED ALWAYS AS (coalesce(`source_account_id`, CASE WHEN json_type(`source`) = 'array' THEN CASE WHEN json_extract(`source`, '$[0]') IN (2, 3, 4, 5, 10, 11) THEN json_extract(`source`, '$[2]') END ELSE json_extract(`source`, '$.accountId') END)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `quotes` ADD COLUMN `customer` text GENERATED ALWAYS AS (coalesce(`customer_id`, CASE WHEN json_type(`source`) = 'array' THEN CASE json_extract(`source`, '$[0]') WHEN 4 THEN json_extract(`source`, '$[3]') WHEN 8 THEN json_extract(`source`, '$[2]') END ELSE json_extract(`source`, '$.customerId') END)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `quotes` ADD COLUMN `receiving_account_id` text GENERATED ALWAYS AS (CASE WHEN json_type(`destination`) = 'array' THEN CASE WHEN json_extract(`destination`, '$[0]') IN (2, 3, 4, 5, 10, 11) THEN json_extract(`destination`, '$[2]') END ELSE json_extract(`destination`, '$.accountId') END) VIRTUAL;--> statement-breakpoint
ALTER TABLE `quotes` ADD COLUMN `receiving_uma_lc` text GENERATED ALWAYS AS (lower(CASE WHEN json_type(`destination`) = 'array' THEN CASE WHEN json_extract(`destination`, '$[0]') IN (6, 7) THEN json_extract(`destination`, '$[2]') END ELSE json_extract(`destination`, '$.umaAddress') END)) VIRTUAL;--> statement-breakpoint
CREATE INDEX `transactions_source_account_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`source_account`, -17), '-', '')), `source_account`), `created_at`);--> statement-breakpoint
CREATE INDEX `transactions_destination_account_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`destination_account`, -17), '-', '')), `destination_account`), `created_at`);--> statement-breakpoint
CREATE INDEX `transactions_open_destination_idx` ON `transactions` (`platform_id`, `destination_account`, `status`) WHERE status IN ('CREATED', 'PENDING', 'PROCESSING');--> statement-breakpoint
CREATE INDEX `quotes_source_account_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`source_account`, -17), '-', '')), `source_account`), `created_at`);--> statement-breakpoint
CREATE INDEX `quotes_customer_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`customer`, -17), '-', '')), `customer`), `created_at`);--> statement-breakpoint
CREATE INDEX `quotes_receiving_account_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`receiving_account_id`, -17), '-', '')), `receiving_account_id`), `created_at`);--> statement-breakpoint
CREATE INDEX `quotes_receiving_uma_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `receiving_uma_lc`, `created_at`) WHERE `receiving_uma_lc` IS NOT NULL;
