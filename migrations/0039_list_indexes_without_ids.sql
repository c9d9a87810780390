-- The list indexes of transactions and quotes end at created_at: SQLite appends the rowid to every entry and
-- orders rows of one created_at by id as it reads them, so the id (48 bytes of text) no longer repeats in each
-- of a payment's index entries. Same filters, same order, same cursors.
DROP INDEX `quotes_platform_idx`;--> statement-breakpoint
DROP INDEX `quotes_customer_idx`;--> statement-breakpoint
DROP INDEX `quotes_source_account_idx`;--> statement-breakpoint
CREATE INDEX `quotes_platform_idx` ON `quotes` (`platform_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `quotes_customer_idx` ON `quotes` (`platform_id`,`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `quotes_source_account_idx` ON `quotes` (`platform_id`,`source_account_id`,`created_at`);--> statement-breakpoint
DROP INDEX `transactions_platform_idx`;--> statement-breakpoint
DROP INDEX `transactions_customer_idx`;--> statement-breakpoint
DROP INDEX `transactions_platform_customer_idx`;--> statement-breakpoint
DROP INDEX `transactions_status_idx`;--> statement-breakpoint
DROP INDEX `transactions_type_idx`;--> statement-breakpoint
DROP INDEX `transactions_reference_idx`;--> statement-breakpoint
DROP INDEX `transactions_source_account_idx`;--> statement-breakpoint
DROP INDEX `transactions_destination_account_idx`;--> statement-breakpoint
CREATE INDEX `transactions_platform_idx` ON `transactions` (`platform_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_customer_idx` ON `transactions` (`platform_id`,`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_platform_customer_idx` ON `transactions` (`platform_id`,`platform_customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_status_idx` ON `transactions` (`platform_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_type_idx` ON `transactions` (`platform_id`,`type`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_reference_idx` ON `transactions` (`platform_id`,`reference`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_source_account_idx` ON `transactions` (`platform_id`,`source_account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_destination_account_idx` ON `transactions` (`platform_id`,`destination_account_id`,`created_at`);--> statement-breakpoint
DROP INDEX `quotes_receiving_account_idx`;--> statement-breakpoint
CREATE INDEX `quotes_receiving_account_idx` ON `quotes` (`platform_id`,`receiving_account_id`,`created_at`);--> statement-breakpoint
DROP INDEX `quotes_status_idx`;--> statement-breakpoint
CREATE INDEX `quotes_status_idx` ON `quotes` (`platform_id`,`status`,`created_at`);--> statement-breakpoint
DROP INDEX `transactions_sender_uma_idx`;--> statement-breakpoint
CREATE INDEX `transactions_sender_uma_idx` ON `transactions` (`platform_id`,`sender_uma_lc`,`created_at`) WHERE `sender_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `transactions_receiver_uma_idx`;--> statement-breakpoint
CREATE INDEX `transactions_receiver_uma_idx` ON `transactions` (`platform_id`,`receiver_uma_lc`,`created_at`) WHERE `receiver_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `quotes_receiving_uma_idx`;--> statement-breakpoint
CREATE INDEX `quotes_receiving_uma_idx` ON `quotes` (`platform_id`,`receiving_uma_lc`,`created_at`) WHERE `receiving_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `quotes_sending_uma_idx`;--> statement-breakpoint
CREATE INDEX `quotes_sending_uma_idx` ON `quotes` (`platform_id`,`sending_uma_lc`,`created_at`) WHERE `sending_uma_lc` IS NOT NULL;
