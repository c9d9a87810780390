CREATE TABLE `due_transitions` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`subject_id` text NOT NULL,
	`kind` text NOT NULL,
	`from_status` text,
	`to_status` text,
	`data` text,
	`due_at` integer NOT NULL,
	`applied_at` integer,
	`applications` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "due_transitions_applied_once" CHECK("due_transitions"."applications" <= 1)
);
--> statement-breakpoint
CREATE INDEX `due_transitions_due_idx` ON `due_transitions` (`applied_at`,`due_at`);--> statement-breakpoint
CREATE INDEX `due_transitions_platform_idx` ON `due_transitions` (`platform_id`,`applied_at`,`due_at`);--> statement-breakpoint
CREATE INDEX `due_transitions_subject_idx` ON `due_transitions` (`subject_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`platform_id` text NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`claim_token` text NOT NULL,
	`locked_until` integer NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`platform_id`, `scope`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expiry_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_attempt_at` integer,
	`last_response_status` integer,
	`last_error` text,
	`url` text,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_uq` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_idx` ON `webhook_deliveries` (`platform_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`type` text NOT NULL,
	`timestamp` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_events_platform_idx` ON `webhook_events` (`platform_id`,`id`);