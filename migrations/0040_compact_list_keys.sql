-- The list indexes of transactions and quotes key each id (platform, customer, account) by the last 8 bytes of
-- its UUID, not its 45-52 bytes of text (src/db/id-key.ts writes the same expression into the queries, which
-- also compare the ids themselves). Same filters, same order, same cursors; only the entries shrink.
DROP INDEX `quotes_platform_idx`;--> statement-breakpoint
CREATE INDEX `quotes_platform_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `created_at`);--> statement-breakpoint
DROP INDEX `quotes_customer_idx`;--> statement-breakpoint
CREATE INDEX `quotes_customer_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`customer_id`, -17), '-', '')), `customer_id`), `created_at`);--> statement-breakpoint
DROP INDEX `quotes_source_account_idx`;--> statement-breakpoint
CREATE INDEX `quotes_source_account_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`source_account_id`, -17), '-', '')), `source_account_id`), `created_at`);--> statement-breakpoint
DROP INDEX `quotes_receiving_account_idx`;--> statement-breakpoint
CREATE INDEX `quotes_receiving_account_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`receiving_account_id`, -17), '-', '')), `receiving_account_id`), `created_at`);--> statement-breakpoint
DROP INDEX `quotes_status_idx`;--> statement-breakpoint
CREATE INDEX `quotes_status_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `status`, `created_at`);--> statement-breakpoint
DROP INDEX `transactions_platform_idx`;--> statement-breakpoint
CREATE INDEX `transactions_platform_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `created_at`);--> statement-breakpoint
DROP INDEX `transactions_customer_idx`;--> statement-breakpoint
CREATE INDEX `transactions_customer_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`customer_id`, -17), '-', '')), `customer_id`), `created_at`);--> statement-breakpoint
DROP INDEX `transactions_platform_customer_idx`;--> statement-breakpoint
CREATE INDEX `transactions_platform_customer_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `platform_customer_id`, `created_at`);--> statement-breakpoint
DROP INDEX `transactions_status_idx`;--> statement-breakpoint
CREATE INDEX `transactions_status_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `status`, `created_at`);--> statement-breakpoint
DROP INDEX `transactions_type_idx`;--> statement-breakpoint
CREATE INDEX `transactions_type_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `type`, `created_at`);--> statement-breakpoint
DROP INDEX `transactions_reference_idx`;--> statement-breakpoint
CREATE INDEX `transactions_reference_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `reference`, `created_at`);--> statement-breakpoint
DROP INDEX `transactions_source_account_idx`;--> statement-breakpoint
CREATE INDEX `transactions_source_account_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`source_account_id`, -17), '-', '')), `source_account_id`), `created_at`);--> statement-breakpoint
DROP INDEX `transactions_destination_account_idx`;--> statement-breakpoint
CREATE INDEX `transactions_destination_account_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), coalesce(unhex(replace(substr(`destination_account_id`, -17), '-', '')), `destination_account_id`), `created_at`);--> statement-breakpoint
DROP INDEX `transactions_sender_uma_idx`;--> statement-breakpoint
CREATE INDEX `transactions_sender_uma_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `sender_uma_lc`, `created_at`) WHERE `sender_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `transactions_receiver_uma_idx`;--> statement-breakpoint
CREATE INDEX `transactions_receiver_uma_idx` ON `transactions` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `receiver_uma_lc`, `created_at`) WHERE `receiver_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `quotes_receiving_uma_idx`;--> statement-breakpoint
CREATE INDEX `quotes_receiving_uma_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `receiving_uma_lc`, `created_at`) WHERE `receiving_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `quotes_sending_uma_idx`;--> statement-breakpoint
CREATE INDEX `quotes_sending_uma_idx` ON `quotes` (coalesce(unhex(replace(substr(`platform_id`, -17), '-', '')), `platform_id`), `sending_uma_lc`, `created_at`) WHERE `sending_uma_lc` IS NOT NULL;
