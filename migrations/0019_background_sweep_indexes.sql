DROP INDEX `due_transitions_due_idx`;--> statement-breakpoint
ALTER TABLE `due_transitions` ADD `sweep_at` integer;--> statement-breakpoint
CREATE INDEX `due_transitions_sweep_idx` ON `due_transitions` (`sweep_at`) WHERE "due_transitions"."applied_at" IS NULL;--> statement-breakpoint
CREATE INDEX `due_transitions_applied_idx` ON `due_transitions` (`sweep_at`) WHERE "due_transitions"."applied_at" IS NOT NULL;--> statement-breakpoint
DROP INDEX `webhook_deliveries_due_idx`;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `sweep_at` integer;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_status_idx` ON `webhook_deliveries` (`platform_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_type_idx` ON `webhook_deliveries` (`platform_id`,`event_type`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_sweep_idx` ON `webhook_deliveries` (`status`,`sweep_at`);