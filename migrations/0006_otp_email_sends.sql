CREATE TABLE `otp_email_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`address` text NOT NULL,
	`sent_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `otp_email_sends_address_idx` ON `otp_email_sends` (`platform_id`,`address`,`sent_at`);