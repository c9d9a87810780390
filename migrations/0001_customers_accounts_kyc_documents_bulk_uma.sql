CREATE TABLE `beneficial_owners` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`roles` text NOT NULL,
	`ownership_percentage` integer NOT NULL,
	`personal_info` text NOT NULL,
	`kyc_status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `beneficial_owners_customer_idx` ON `beneficial_owners` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE TABLE `bulk_import_chunks` (
	`job_id` text NOT NULL,
	`row_offset` integer NOT NULL,
	`rows` text NOT NULL,
	PRIMARY KEY(`job_id`, `row_offset`),
	FOREIGN KEY (`job_id`) REFERENCES `bulk_import_jobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `bulk_import_chunks_done` (
	`job_id` text NOT NULL,
	`row_offset` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`job_id`, `row_offset`)
);
--> statement-breakpoint
CREATE TABLE `bulk_import_errors` (
	`job_id` text NOT NULL,
	`row_number` integer NOT NULL,
	`code` text NOT NULL,
	`message` text NOT NULL,
	`details` text,
	`correlation_id` text NOT NULL,
	PRIMARY KEY(`job_id`, `row_number`)
);
--> statement-breakpoint
CREATE TABLE `bulk_import_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`status` text NOT NULL,
	`total` integer NOT NULL,
	`processed` integer DEFAULT 0 NOT NULL,
	`successful` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`columns` text NOT NULL,
	`file_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`document_holder` text NOT NULL,
	`document_type` text NOT NULL,
	`side` text,
	`country` text NOT NULL,
	`document_number` text,
	`issuing_authority` text,
	`file_name` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`object_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `documents_platform_idx` ON `documents` (`platform_id`,`id`);--> statement-breakpoint
CREATE INDEX `documents_holder_idx` ON `documents` (`platform_id`,`document_holder`,`id`);--> statement-breakpoint
CREATE TABLE `external_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text,
	`holder_id` text NOT NULL,
	`status` text NOT NULL,
	`currency` text NOT NULL,
	`account_type` text NOT NULL,
	`identifier` text NOT NULL,
	`account_info` text NOT NULL,
	`platform_account_id` text,
	`default_uma_deposit_account` integer DEFAULT false NOT NULL,
	`beneficiary_verification_status` text,
	`beneficiary_verified_data` text,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `external_accounts_platform_idx` ON `external_accounts` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `external_accounts_identifier_uq` ON `external_accounts` (`holder_id`,`account_type`,`identifier`,`currency`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `uma_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`domain` text NOT NULL,
	`logo_url` text,
	`supported_regions` text NOT NULL,
	`supported_currencies` text NOT NULL,
	`lei` text,
	`allow_list_status` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uma_providers_domain_unique` ON `uma_providers` (`domain`);--> statement-breakpoint
CREATE INDEX `uma_providers_name_idx` ON `uma_providers` (`name`,`id`);--> statement-breakpoint
CREATE TABLE `verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`verification_status` text NOT NULL,
	`errors` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `verifications_platform_idx` ON `verifications` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
DROP INDEX `customers_platform_customer_id_uq`;--> statement-breakpoint
DROP INDEX `customers_uma_address_uq`;--> statement-breakpoint
ALTER TABLE `customers` ADD `currencies` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `customers_platform_customer_id_uq` ON `customers` (`platform_id`,`platform_customer_id`) WHERE is_deleted = 0;--> statement-breakpoint
CREATE UNIQUE INDEX `customers_uma_address_uq` ON `customers` (`platform_id`,`uma_address`) WHERE is_deleted = 0;--> statement-breakpoint
CREATE INDEX `internal_accounts_customer_idx` ON `internal_accounts` (`customer_id`);