CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`name` text NOT NULL,
	`permissions` text NOT NULL,
	`client_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_client_id_unique` ON `api_tokens` (`client_id`);--> statement-breakpoint
CREATE INDEX `api_tokens_platform_idx` ON `api_tokens` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `platforms` (
	`id` text PRIMARY KEY NOT NULL,
	`config_id` text NOT NULL,
	`name` text NOT NULL,
	`uma_domain` text NOT NULL,
	`proxy_uma_subdomain` text,
	`webhook_endpoint` text,
	`supported_currencies` text NOT NULL,
	`embedded_wallet_config` text,
	`is_regulated` integer NOT NULL,
	`clock_offset_ms` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
