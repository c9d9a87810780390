ALTER TABLE `webhook_deliveries` ADD `payload` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `signature` text;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `last_response_body` text;