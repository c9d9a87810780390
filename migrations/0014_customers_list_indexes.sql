CREATE TABLE `customer_currencies` (
	`platform_id` text NOT NULL,
	`currency` text NOT NULL,
	`customer_id` text NOT NULL,
	PRIMARY KEY(`platform_id`, `currency`, `customer_id`)
);
--> statement-breakpoint
CREATE INDEX `customers_platform_customer_id_idx` ON `customers` (`platform_id`,`platform_customer_id`,`id`);--> statement-breakpoint
CREATE INDEX `customers_type_idx` ON `customers` (`platform_id`,`customer_type`,`id`);--> statement-breakpoint
CREATE INDEX `customers_region_idx` ON `customers` (`platform_id`,`region`,`id`);--> statement-breakpoint
CREATE INDEX `customers_uma_address_idx` ON `customers` (`platform_id`,lower("uma_address"),`id`);--> statement-breakpoint
CREATE INDEX `customers_created_idx` ON `customers` (`platform_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `customers_updated_idx` ON `customers` (`platform_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_open_customer_idx` ON `transactions` (`platform_id`,`customer_id`,`status`) WHERE status IN ('CREATED', 'PENDING', 'PROCESSING');--> statement-breakpoint
CREATE INDEX `transactions_open_destination_idx` ON `transactions` (`platform_id`,`destination_account_id`,`status`) WHERE status IN ('CREATED', 'PENDING', 'PROCESSING');