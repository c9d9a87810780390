CREATE TABLE `quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`customer_id` text,
	`source_type` text NOT NULL,
	`source_account_id` text,
	`source` text NOT NULL,
	`destination` text NOT NULL,
	`locked_side` text NOT NULL,
	`sending_currency` text NOT NULL,
	`receiving_currency` text NOT NULL,
	`total_sending_amount` integer NOT NULL,
	`total_receiving_amount` integer NOT NULL,
	`exchange_rate` real NOT NULL,
	`fees_included` integer NOT NULL,
	`rate_details` text NOT NULL,
	`payment_instructions` text,
	`counterparty_information` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `quotes_platform_idx` ON `quotes` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `transaction_history` (
	`transaction_id` text NOT NULL,
	`version` integer NOT NULL,
	`platform_id` text NOT NULL,
	`from_status` text,
	`to_status` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`transaction_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `transaction_history_platform_idx` ON `transaction_history` (`platform_id`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text,
	`platform_customer_id` text NOT NULL,
	`type` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`source` text,
	`destination` text NOT NULL,
	`source_account_id` text,
	`destination_account_id` text,
	`sent_amount` integer,
	`sent_currency` text,
	`received_amount` integer NOT NULL,
	`received_currency` text NOT NULL,
	`exchange_rate` real,
	`fees` integer NOT NULL,
	`rate_details` text,
	`quote_id` text,
	`payment_instructions` text,
	`counterparty_information` text,
	`description` text,
	`reference` text NOT NULL,
	`sender_uma_address` text,
	`receiver_uma_address` text,
	`failure_reason` text,
	`refund` text,
	`settled_at` integer,
	`agent_id` text,
	`approval` text,
	`scenario` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "transactions_fees_non_negative" CHECK("transactions"."fees" >= 0),
	CONSTRAINT "transactions_amounts_positive" CHECK("transactions"."received_amount" > 0 AND ("transactions"."sent_amount" IS NULL OR "transactions"."sent_amount" > 0))
);
--> statement-breakpoint
CREATE INDEX `transactions_platform_idx` ON `transactions` (`platform_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_customer_idx` ON `transactions` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_source_account_idx` ON `transactions` (`source_account_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_destination_account_idx` ON `transactions` (`destination_account_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_quote_idx` ON `transactions` (`quote_id`);