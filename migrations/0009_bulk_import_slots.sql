ALTER TABLE `bulk_import_jobs` ADD `started_at` integer;--> statement-breakpoint
CREATE INDEX `bulk_import_jobs_platform_status_idx` ON `bulk_import_jobs` (`platform_id`,`status`,`id`);