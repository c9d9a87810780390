-- Webhook deliveries: maintained counts for GET /webhooks/deliveries (all, and per status), kept by
-- triggers in the same statement as the rows; and the sweep's wall-clock times of the rows already there
-- (pending: when due; settled or applied: when, which retention counts from).
CREATE TRIGGER `webhook_deliveries_count_insert` AFTER INSERT ON `webhook_deliveries` BEGIN
  INSERT INTO list_counts (platform_id, list, n) VALUES (NEW.platform_id, 'webhook_deliveries', 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
  INSERT INTO list_counts (platform_id, list, n) VALUES (NEW.platform_id, 'webhook_deliveries:status=' || NEW.status, 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_count_delete` AFTER DELETE ON `webhook_deliveries` BEGIN
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list = 'webhook_deliveries';
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list = 'webhook_deliveries:status=' || OLD.status;
END;--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_count_status` AFTER UPDATE OF status ON `webhook_deliveries` WHEN OLD.status IS NOT NEW.status BEGIN
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list = 'webhook_deliveries:status=' || OLD.status;
  INSERT INTO list_counts (platform_id, list, n) VALUES (NEW.platform_id, 'webhook_deliveries:status=' || NEW.status, 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
END;--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'webhook_deliveries', count(*) FROM webhook_deliveries GROUP BY platform_id;--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'webhook_deliveries:status=' || status, count(*) FROM webhook_deliveries GROUP BY platform_id, status;--> statement-breakpoint
UPDATE webhook_deliveries SET sweep_at = CASE WHEN status = 'PENDING' THEN next_attempt_at ELSE updated_at END
  - coalesce((SELECT clock_offset_ms FROM platforms WHERE platforms.id = webhook_deliveries.platform_id), 0);--> statement-breakpoint
UPDATE due_transitions SET sweep_at = CASE WHEN applied_at IS NULL THEN due_at ELSE applied_at END
  - coalesce((SELECT clock_offset_ms FROM platforms WHERE platforms.id = due_transitions.platform_id), 0);
