-- Transactions: lower-cased UMA addresses as generated columns with their indexes (account identifier
-- filters; virtual, so every write path fills them, rows already there included), and maintained counts for
-- GET /transactions (all, per status, per type, per customer: the platform's own under the platform id),
-- kept by triggers in the same statement as the rows, with the counts of the rows already there.
ALTER TABLE `transactions` ADD `sender_uma_lc` text GENERATED ALWAYS AS (lower(`sender_uma_address`)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `transactions` ADD `receiver_uma_lc` text GENERATED ALWAYS AS (lower(`receiver_uma_address`)) VIRTUAL;--> statement-breakpoint
CREATE INDEX `transactions_sender_uma_idx` ON `transactions` (`platform_id`,`sender_uma_lc`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_receiver_uma_idx` ON `transactions` (`platform_id`,`receiver_uma_lc`,`created_at`,`id`);--> statement-breakpoint
CREATE TRIGGER `transactions_count_insert` AFTER INSERT ON `transactions` BEGIN
  INSERT INTO list_counts (platform_id, list, n) VALUES
    (NEW.platform_id, 'transactions', 1),
    (NEW.platform_id, 'transactions:status=' || NEW.status, 1),
    (NEW.platform_id, 'transactions:type=' || NEW.type, 1),
    (NEW.platform_id, 'transactions:customer=' || coalesce(NEW.customer_id, NEW.platform_id), 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
END;--> statement-breakpoint
CREATE TRIGGER `transactions_count_delete` AFTER DELETE ON `transactions` BEGIN
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list IN (
    'transactions',
    'transactions:status=' || OLD.status,
    'transactions:type=' || OLD.type,
    'transactions:customer=' || coalesce(OLD.customer_id, OLD.platform_id));
END;--> statement-breakpoint
CREATE TRIGGER `transactions_count_status` AFTER UPDATE OF status ON `transactions` WHEN OLD.status IS NOT NEW.status
  AND OLD.type IS NEW.type AND OLD.customer_id IS NEW.customer_id AND OLD.platform_id IS NEW.platform_id BEGIN
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list = 'transactions:status=' || OLD.status;
  INSERT INTO list_counts (platform_id, list, n) VALUES (NEW.platform_id, 'transactions:status=' || NEW.status, 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
END;--> statement-breakpoint
-- Never moved by the service (a transaction keeps its type, owner and platform); counted right if they were
-- (with its status, if that moved in the same update: the trigger above then leaves it to this one).
CREATE TRIGGER `transactions_count_owner` AFTER UPDATE OF status, type, customer_id, platform_id ON `transactions`
  WHEN OLD.type IS NOT NEW.type OR OLD.customer_id IS NOT NEW.customer_id OR OLD.platform_id IS NOT NEW.platform_id BEGIN
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list IN (
    'transactions',
    'transactions:status=' || OLD.status,
    'transactions:type=' || OLD.type,
    'transactions:customer=' || coalesce(OLD.customer_id, OLD.platform_id));
  INSERT INTO list_counts (platform_id, list, n) VALUES
    (NEW.platform_id, 'transactions', 1),
    (NEW.platform_id, 'transactions:status=' || NEW.status, 1),
    (NEW.platform_id, 'transactions:type=' || NEW.type, 1),
    (NEW.platform_id, 'transactions:customer=' || coalesce(NEW.customer_id, NEW.platform_id), 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
END;--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'transactions', count(*) FROM transactions GROUP BY platform_id;--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'transactions:status=' || status, count(*) FROM transactions GROUP BY platform_id, status;--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'transactions:type=' || type, count(*) FROM transactions GROUP BY platform_id, type;--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'transactions:customer=' || coalesce(customer_id, platform_id), count(*) FROM transactions
  GROUP BY platform_id, coalesce(customer_id, platform_id);
