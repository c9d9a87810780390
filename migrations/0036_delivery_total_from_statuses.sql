-- A platform's deliveries total is the sum of its four status counters (read together, one index range), so a
-- delivery written or deleted keeps one counter instead of two: the total's own counter goes.
DROP TRIGGER `webhook_deliveries_count_insert`;--> statement-breakpoint
DROP TRIGGER `webhook_deliveries_count_delete`;--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_count_insert` AFTER INSERT ON `webhook_deliveries` BEGIN
  INSERT INTO list_counts (platform_id, list, n) VALUES (NEW.platform_id, 'webhook_deliveries:status=' || NEW.status, 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_count_delete` AFTER DELETE ON `webhook_deliveries` BEGIN
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list = 'webhook_deliveries:status=' || OLD.status;
END;--> statement-breakpoint
DELETE FROM list_counts WHERE list = 'webhook_deliveries';
