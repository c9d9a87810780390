-- Quotes: what GET /quotes filters on that lives in the quote's transaction, as columns of the quote with
-- their indexes: the receiving account and UMA address (generated from the quote's destination, virtual), the
-- sender's UMA address and the status the transaction gives the quote before its expiry by time (copied from
-- the transaction by triggers, every write path; filled here for the quotes already there). And the maintained
-- count of a platform's quotes, kept by triggers, with the count of the quotes already there.
ALTER TABLE `quotes` ADD `receiving_account_id` text GENERATED ALWAYS AS (json_extract(`destination`, '$.accountId')) VIRTUAL;--> statement-breakpoint
ALTER TABLE `quotes` ADD `receiving_uma_lc` text GENERATED ALWAYS AS (lower(json_extract(`destination`, '$.umaAddress'))) VIRTUAL;--> statement-breakpoint
ALTER TABLE `quotes` ADD `sending_uma_lc` text;--> statement-breakpoint
ALTER TABLE `quotes` ADD `status` text;--> statement-breakpoint
CREATE INDEX `quotes_receiving_account_idx` ON `quotes` (`platform_id`,`receiving_account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `quotes_receiving_uma_idx` ON `quotes` (`platform_id`,`receiving_uma_lc`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `quotes_sending_uma_idx` ON `quotes` (`platform_id`,`sending_uma_lc`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `quotes_status_idx` ON `quotes` (`platform_id`,`status`,`created_at`,`id`);--> statement-breakpoint
-- The quote status of a transaction status: QUOTE_STATUS_OF (src/payments/views.ts), which a test holds equal.
CREATE TRIGGER `quotes_transaction_insert` AFTER INSERT ON `transactions` WHEN NEW.quote_id IS NOT NULL BEGIN
  UPDATE quotes SET sending_uma_lc = lower(NEW.sender_uma_address), status = CASE NEW.status
    WHEN 'CREATED' THEN 'PENDING' WHEN 'PENDING' THEN 'PENDING' WHEN 'PROCESSING' THEN 'PROCESSING'
    WHEN 'COMPLETED' THEN 'COMPLETED' WHEN 'EXPIRED' THEN 'EXPIRED' ELSE 'FAILED' END
  WHERE id = NEW.quote_id;
END;--> statement-breakpoint
CREATE TRIGGER `quotes_transaction_status` AFTER UPDATE OF status ON `transactions`
  WHEN NEW.quote_id IS NOT NULL AND OLD.status IS NOT NEW.status BEGIN
  UPDATE quotes SET status = CASE NEW.status
    WHEN 'CREATED' THEN 'PENDING' WHEN 'PENDING' THEN 'PENDING' WHEN 'PROCESSING' THEN 'PROCESSING'
    WHEN 'COMPLETED' THEN 'COMPLETED' WHEN 'EXPIRED' THEN 'EXPIRED' ELSE 'FAILED' END
  WHERE id = NEW.quote_id;
END;--> statement-breakpoint
-- Counts the quote; a quote written after its transaction (the service writes it before) takes its values from it.
CREATE TRIGGER `quotes_count_insert` AFTER INSERT ON `quotes` BEGIN
  INSERT INTO list_counts (platform_id, list, n) VALUES (NEW.platform_id, 'quotes', 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + 1;
  UPDATE quotes SET sending_uma_lc = t.sending_uma_lc, status = t.status FROM (
    SELECT lower(sender_uma_address) AS sending_uma_lc, CASE status
      WHEN 'CREATED' THEN 'PENDING' WHEN 'PENDING' THEN 'PENDING' WHEN 'PROCESSING' THEN 'PROCESSING'
      WHEN 'COMPLETED' THEN 'COMPLETED' WHEN 'EXPIRED' THEN 'EXPIRED' ELSE 'FAILED' END AS status
    FROM transactions WHERE id = NEW.transaction_id) AS t
  WHERE quotes.id = NEW.id;
END;--> statement-breakpoint
CREATE TRIGGER `quotes_count_delete` AFTER DELETE ON `quotes` BEGIN
  UPDATE list_counts SET n = n - 1 WHERE platform_id = OLD.platform_id AND list = 'quotes';
END;--> statement-breakpoint
UPDATE quotes SET sending_uma_lc = t.sending_uma_lc, status = t.status FROM (
  SELECT id, lower(sender_uma_address) AS sending_uma_lc, CASE status
    WHEN 'CREATED' THEN 'PENDING' WHEN 'PENDING' THEN 'PENDING' WHEN 'PROCESSING' THEN 'PROCESSING'
    WHEN 'COMPLETED' THEN 'COMPLETED' WHEN 'EXPIRED' THEN 'EXPIRED' ELSE 'FAILED' END AS status
  FROM transactions) AS t
  WHERE t.id = quotes.transaction_id;--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'quotes', count(*) FROM quotes GROUP BY platform_id;
