CREATE TABLE `sandbox_fault_firings` (
	`fault_id` text NOT NULL,
	`platform_id` text NOT NULL,
	`at` integer NOT NULL,
	`evaluation` integer NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`request_id` text NOT NULL,
	PRIMARY KEY(`fault_id`, `evaluation`)
);
--> statement-breakpoint
CREATE TABLE `sandbox_faults` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`match` text NOT NULL,
	`effect` text NOT NULL,
	`times` integer NOT NULL,
	`remaining` integer NOT NULL,
	`fired_count` integer DEFAULT 0 NOT NULL,
	`probability` real NOT NULL,
	`seed` integer NOT NULL,
	`evaluations` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_faults_platform_idx` ON `sandbox_faults` (`platform_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `platforms` ADD `sandbox_faults` text;