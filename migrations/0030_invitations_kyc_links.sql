CREATE TABLE `invitations` (
	`code` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`inviter_customer_id` text NOT NULL,
	`inviter_uma` text NOT NULL,
	`first_name` text,
	`amount_to_send` integer,
	`amount_currency` text,
	`expires_at` integer,
	`status` text NOT NULL,
	`invitee_uma` text,
	`claimed_by_platform_id` text,
	`claimed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invitations_platform_created_idx` ON `invitations` (`platform_id`,`created_at`,`code`);--> statement-breakpoint
CREATE TABLE `kyc_links` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`redirect_uri` text,
	`idempotency_key` text,
	`request_fingerprint` text,
	`expires_at` integer NOT NULL,
	`completed_at` integer,
	`outcome` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kyc_links_secret_uq` ON `kyc_links` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `kyc_links_platform_customer_idx` ON `kyc_links` (`platform_id`,`customer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `kyc_links_idempotency_uq` ON `kyc_links` (`platform_id`,`idempotency_key`) WHERE idempotency_key IS NOT NULL;