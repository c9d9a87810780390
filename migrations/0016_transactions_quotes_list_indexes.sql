DROP INDEX `quotes_platform_idx`;--> statement-breakpoint
CREATE INDEX `quotes_customer_idx` ON `quotes` (`platform_id`,`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `quotes_source_account_idx` ON `quotes` (`platform_id`,`source_account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `quotes_platform_idx` ON `quotes` (`platform_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `transactions_platform_idx`;--> statement-breakpoint
DROP INDEX `transactions_customer_idx`;--> statement-breakpoint
DROP INDEX `transactions_source_account_idx`;--> statement-breakpoint
DROP INDEX `transactions_destination_account_idx`;--> statement-breakpoint
CREATE INDEX `transactions_platform_customer_idx` ON `transactions` (`platform_id`,`platform_customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_status_idx` ON `transactions` (`platform_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_type_idx` ON `transactions` (`platform_id`,`type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_reference_idx` ON `transactions` (`platform_id`,`reference`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_platform_idx` ON `transactions` (`platform_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_customer_idx` ON `transactions` (`platform_id`,`customer_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_source_account_idx` ON `transactions` (`platform_id`,`source_account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_destination_account_idx` ON `transactions` (`platform_id`,`destination_account_id`,`created_at`,`id`);