CREATE TABLE `sandbox_snapshot_rows` (
	`snapshot_id` text NOT NULL,
	`kind` text NOT NULL,
	`row` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_snapshot_rows_idx` ON `sandbox_snapshot_rows` (`snapshot_id`,`kind`);--> statement-breakpoint
CREATE TABLE `sandbox_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`name` text NOT NULL,
	`hidden` integer DEFAULT false NOT NULL,
	`clock_offset_ms` integer NOT NULL,
	`columns` text NOT NULL,
	`counts` text NOT NULL,
	`row_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_snapshots_platform_idx` ON `sandbox_snapshots` (`platform_id`,`hidden`,`id`);