-- An event written into its delivery (its own row and key entry before, and the delivery's event index to find
-- it). Events written before stay in webhook_events, read until the retention sweep purges them with their
-- deliveries: nothing is copied here.
ALTER TABLE `webhook_deliveries` ADD `event_timestamp` integer;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `event_data` text;
