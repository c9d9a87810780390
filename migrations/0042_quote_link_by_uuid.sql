-- A quote's transaction shares the quote's UUID (`Quote:<u>`, `Transaction:<u>`), so a new transaction stores no
-- link to its quote: `quote_id` stays for rows written before, and new rows leave it NULL. The triggers that keep
-- a quote's status with its transaction's read the link the same way (`transactionQuoteId`, src/db/payments-schema.ts):
-- the stored id first, else the quote of the same UUID when the transaction pays a quote. No row is rewritten.
DROP TRIGGER `quotes_transaction_insert`;--> statement-breakpoint
DROP TRIGGER `quotes_transaction_status`;--> statement-breakpoint
CREATE TRIGGER `quotes_transaction_insert` AFTER INSERT ON `transactions`
  WHEN NEW.quote_id IS NOT NULL OR NEW.kind = 'QUOTE' BEGIN
  UPDATE quotes SET sending_uma_lc = lower(NEW.sender_uma_address), status = CASE NEW.status
    WHEN 'CREATED' THEN 'PENDING' WHEN 'PENDING' THEN 'PENDING' WHEN 'PROCESSING' THEN 'PROCESSING'
    WHEN 'COMPLETED' THEN 'COMPLETED' WHEN 'EXPIRED' THEN 'EXPIRED' ELSE 'FAILED' END
  WHERE id = coalesce(NEW.quote_id, 'Quote:' || substr(NEW.id, length('Transaction:') + 1));
END;--> statement-breakpoint
CREATE TRIGGER `quotes_transaction_status` AFTER UPDATE OF status ON `transactions`
  WHEN (NEW.quote_id IS NOT NULL OR NEW.kind = 'QUOTE') AND OLD.status IS NOT NEW.status BEGIN
  UPDATE quotes SET status = CASE NEW.status
    WHEN 'CREATED' THEN 'PENDING' WHEN 'PENDING' THEN 'PENDING' WHEN 'PROCESSING' THEN 'PROCESSING'
    WHEN 'COMPLETED' THEN 'COMPLETED' WHEN 'EXPIRED' THEN 'EXPIRED' ELSE 'FAILED' END
  WHERE id = coalesce(NEW.quote_id, 'Quote:' || substr(NEW.id, length('Transaction:') + 1));
END;
