DROP INDEX `webhook_deliveries_event_uq`;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `mode` text DEFAULT 'NORMAL' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `resource_id` text;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`event_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_resource_idx` ON `webhook_deliveries` (`platform_id`,`resource_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_created_idx` ON `webhook_deliveries` (`platform_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_type_created_idx` ON `webhook_deliveries` (`platform_id`,`event_type`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_status_created_idx` ON `webhook_deliveries` (`platform_id`,`status`,`created_at`);--> statement-breakpoint
-- Past deliveries name their resource too (the id in their event's data), so OUT_OF_ORDER finds their events.
UPDATE `webhook_deliveries` SET `resource_id` = (SELECT json_extract(`data`, '$.id') FROM `webhook_events` WHERE `webhook_events`.`id` = `webhook_deliveries`.`event_id`);
