-- Totals of the lists scoped to one record (README "List totals and cost"): one holder's documents
-- ('documents:<holder id>'), one customer's verifications ('verifications:<customer id>') and one customer's live
-- agents ('agents:<customer id>'), kept by the same triggers as the platform's counts of 0013 (replaced here, in
-- the statement that writes the row), then the rows already there are counted once. A document's holder, a
-- verification's and an agent's customer never change.
DROP TRIGGER `documents_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `documents_counts_delete`;
--> statement-breakpoint
CREATE TRIGGER `documents_counts_insert` AFTER INSERT ON `documents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'documents', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'documents:' || NEW.document_holder, 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `documents_counts_delete` AFTER DELETE ON `documents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'documents', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'documents:' || OLD.document_holder, -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
DROP TRIGGER `verifications_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `verifications_counts_delete`;
--> statement-breakpoint
CREATE TRIGGER `verifications_counts_insert` AFTER INSERT ON `verifications` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'verifications', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'verifications:' || NEW.customer_id, 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `verifications_counts_delete` AFTER DELETE ON `verifications` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'verifications', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'verifications:' || OLD.customer_id, -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
DROP TRIGGER `agents_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `agents_counts_delete`;
--> statement-breakpoint
DROP TRIGGER `agents_counts_update`;
--> statement-breakpoint
CREATE TRIGGER `agents_counts_insert` AFTER INSERT ON `agents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agents', 1 WHERE NEW.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agents:' || NEW.customer_id, 1 WHERE NEW.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agents_counts_delete` AFTER DELETE ON `agents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'agents', -1 WHERE OLD.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'agents:' || OLD.customer_id, -1 WHERE OLD.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agents_counts_update` AFTER UPDATE OF deleted_at ON `agents`
  WHEN (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL) BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agents', CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agents:' || NEW.customer_id, CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'documents:' || document_holder, count(*) FROM `documents` WHERE 1 GROUP BY platform_id, document_holder
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'verifications:' || customer_id, count(*) FROM `verifications` WHERE 1 GROUP BY platform_id, customer_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'agents:' || customer_id, count(*) FROM `agents` WHERE deleted_at IS NULL GROUP BY platform_id, customer_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
