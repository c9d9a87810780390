CREATE TABLE `receiver_lookups` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`receiver_type` text NOT NULL,
	`receiver` text NOT NULL,
	`customer_id` text,
	`currencies` text NOT NULL,
	`required_payer_fields` text NOT NULL,
	`receiver_name` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `receiver_lookups_expiry_idx` ON `receiver_lookups` (`expires_at`);--> statement-breakpoint
CREATE INDEX `receiver_lookups_platform_idx` ON `receiver_lookups` (`platform_id`,`expires_at`);