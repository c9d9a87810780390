-- Webhook deliveries: one index set serves the list (newest first, by status or event type) and the replay (oldest
-- first within a creation-time range), both in (created_at, id) order; the list's id-ordered set goes (three
-- fewer index entries per delivery). The event index ends in the same order for the list by eventId.
DROP INDEX `webhook_deliveries_platform_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_platform_status_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_platform_type_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_event_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_platform_created_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_platform_type_created_idx`;--> statement-breakpoint
DROP INDEX `webhook_deliveries_platform_status_created_idx`;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`event_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_created_idx` ON `webhook_deliveries` (`platform_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_type_created_idx` ON `webhook_deliveries` (`platform_id`,`event_type`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_status_created_idx` ON `webhook_deliveries` (`platform_id`,`status`,`created_at`,`id`);
