CREATE TABLE `home_forwards` (
	`key` text PRIMARY KEY NOT NULL,
	`home` text NOT NULL,
	`platform_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `home_forwards_platform_idx` ON `home_forwards` (`platform_id`);--> statement-breakpoint
CREATE TABLE `platform_homes` (
	`platform_id` text PRIMARY KEY NOT NULL,
	`home` text NOT NULL,
	`uma_domain` text NOT NULL,
	`moving_to` text,
	`moved_from` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `platform_homes_uma_domain_uq` ON `platform_homes` (lower("uma_domain"));--> statement-breakpoint
CREATE INDEX `platform_homes_home_idx` ON `platform_homes` (`home`);--> statement-breakpoint
ALTER TABLE `platforms` ADD `held_since` integer;--> statement-breakpoint
-- A database of an earlier release is the first home, with all its platforms (a few rows: one per platform).
INSERT INTO `platform_homes` (`platform_id`, `home`, `uma_domain`) SELECT `id`, 'DB', `uma_domain` FROM `platforms`;
--> statement-breakpoint
-- The operator's platform list is the directory's: its count follows the directory's rows, not a home's
-- platforms (a home other than the first has platforms and no directory; the count here already matches).
DROP TRIGGER `platforms_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `platforms_counts_delete`;
--> statement-breakpoint
CREATE TRIGGER `platform_homes_counts_insert` AFTER INSERT ON `platform_homes` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'platforms', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `platform_homes_counts_delete` AFTER DELETE ON `platform_homes` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'platforms', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
