-- Maintained counts (list_counts) of the lists of platforms, API tokens, agents, agent actions (per agent, and
-- the platform's approvals), external accounts (the customers', per customer, the platform's), the customers'
-- internal accounts, beneficial owners (per customer), verifications, documents and UMA providers (all, and
-- allow-listed). Triggers keep them in the same statement as the rows (every write path: API, bulk paths,
-- sandbox reset), then the rows already there are counted once. Per-customer and per-agent counters are keyed
-- '<list>:<id>'; service-wide lists use platform_id '*'. An UPDATE moves a row in or out of a set only
-- through the columns named in its trigger.
CREATE TRIGGER `platforms_counts_insert` AFTER INSERT ON `platforms` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'platforms', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `platforms_counts_delete` AFTER DELETE ON `platforms` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'platforms', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `api_tokens_counts_insert` AFTER INSERT ON `api_tokens` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'api_tokens', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `api_tokens_counts_delete` AFTER DELETE ON `api_tokens` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'api_tokens', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agents_counts_insert` AFTER INSERT ON `agents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agents', 1 WHERE NEW.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agents_counts_delete` AFTER DELETE ON `agents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'agents', -1 WHERE OLD.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agents_counts_update` AFTER UPDATE OF deleted_at ON `agents`
  WHEN (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL) BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agents', CASE WHEN NEW.deleted_at IS NULL THEN 1 ELSE -1 END WHERE (OLD.deleted_at IS NULL) IS NOT (NEW.deleted_at IS NULL)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agent_actions_counts_insert` AFTER INSERT ON `agent_actions` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agent_actions:' || NEW.agent_id, 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agent_approvals', 1 WHERE NEW.status = 'PENDING_APPROVAL' AND NEW.transaction_id IS NOT NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agent_actions_counts_delete` AFTER DELETE ON `agent_actions` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'agent_actions:' || OLD.agent_id, -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'agent_approvals', -1 WHERE OLD.status = 'PENDING_APPROVAL' AND OLD.transaction_id IS NOT NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `agent_actions_counts_update` AFTER UPDATE OF status, transaction_id ON `agent_actions`
  WHEN (OLD.status = 'PENDING_APPROVAL' AND OLD.transaction_id IS NOT NULL) IS NOT (NEW.status = 'PENDING_APPROVAL' AND NEW.transaction_id IS NOT NULL) BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'agent_approvals', CASE WHEN NEW.status = 'PENDING_APPROVAL' AND NEW.transaction_id IS NOT NULL THEN 1 ELSE -1 END WHERE (OLD.status = 'PENDING_APPROVAL' AND OLD.transaction_id IS NOT NULL) IS NOT (NEW.status = 'PENDING_APPROVAL' AND NEW.transaction_id IS NOT NULL)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `external_accounts_counts_insert` AFTER INSERT ON `external_accounts` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'customer_external_accounts', 1 WHERE NEW.customer_id IS NOT NULL AND NEW.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'customer_external_accounts:' || NEW.customer_id, 1 WHERE NEW.customer_id IS NOT NULL AND NEW.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'platform_external_accounts', 1 WHERE NEW.customer_id IS NULL AND NEW.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `external_accounts_counts_delete` AFTER DELETE ON `external_accounts` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'customer_external_accounts', -1 WHERE OLD.customer_id IS NOT NULL AND OLD.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'customer_external_accounts:' || OLD.customer_id, -1 WHERE OLD.customer_id IS NOT NULL AND OLD.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'platform_external_accounts', -1 WHERE OLD.customer_id IS NULL AND OLD.deleted_at IS NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `external_accounts_counts_update` AFTER UPDATE OF deleted_at ON `external_accounts`
  WHEN (OLD.customer_id IS NOT NULL AND OLD.deleted_at IS NULL) IS NOT (NEW.customer_id IS NOT NULL AND NEW.deleted_at IS NULL) OR (OLD.customer_id IS NULL AND OLD.deleted_at IS NULL) IS NOT (NEW.customer_id IS NULL AND NEW.deleted_at IS NULL) BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'customer_external_accounts', CASE WHEN NEW.customer_id IS NOT NULL AND NEW.deleted_at IS NULL THEN 1 ELSE -1 END WHERE (OLD.customer_id IS NOT NULL AND OLD.deleted_at IS NULL) IS NOT (NEW.customer_id IS NOT NULL AND NEW.deleted_at IS NULL)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'customer_external_accounts:' || NEW.customer_id, CASE WHEN NEW.customer_id IS NOT NULL AND NEW.deleted_at IS NULL THEN 1 ELSE -1 END WHERE (OLD.customer_id IS NOT NULL AND OLD.deleted_at IS NULL) IS NOT (NEW.customer_id IS NOT NULL AND NEW.deleted_at IS NULL)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'platform_external_accounts', CASE WHEN NEW.customer_id IS NULL AND NEW.deleted_at IS NULL THEN 1 ELSE -1 END WHERE (OLD.customer_id IS NULL AND OLD.deleted_at IS NULL) IS NOT (NEW.customer_id IS NULL AND NEW.deleted_at IS NULL)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `internal_accounts_counts_insert` AFTER INSERT ON `internal_accounts` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'customer_internal_accounts', 1 WHERE NEW.customer_id IS NOT NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `internal_accounts_counts_delete` AFTER DELETE ON `internal_accounts` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'customer_internal_accounts', -1 WHERE OLD.customer_id IS NOT NULL
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `beneficial_owners_counts_insert` AFTER INSERT ON `beneficial_owners` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'beneficial_owners:' || NEW.customer_id, 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `beneficial_owners_counts_delete` AFTER DELETE ON `beneficial_owners` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'beneficial_owners:' || OLD.customer_id, -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `verifications_counts_insert` AFTER INSERT ON `verifications` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'verifications', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `verifications_counts_delete` AFTER DELETE ON `verifications` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'verifications', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `documents_counts_insert` AFTER INSERT ON `documents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT NEW.platform_id, 'documents', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `documents_counts_delete` AFTER DELETE ON `documents` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT OLD.platform_id, 'documents', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `uma_providers_counts_insert` AFTER INSERT ON `uma_providers` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'uma_providers', 1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'uma_providers_allowed', 1 WHERE NEW.allow_list_status = 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `uma_providers_counts_delete` AFTER DELETE ON `uma_providers` BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'uma_providers', -1 WHERE 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'uma_providers_allowed', -1 WHERE OLD.allow_list_status = 1
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `uma_providers_counts_update` AFTER UPDATE OF allow_list_status ON `uma_providers`
  WHEN (OLD.allow_list_status = 1) IS NOT (NEW.allow_list_status = 1) BEGIN
  INSERT INTO list_counts (platform_id, list, n) SELECT '*', 'uma_providers_allowed', CASE WHEN NEW.allow_list_status = 1 THEN 1 ELSE -1 END WHERE (OLD.allow_list_status = 1) IS NOT (NEW.allow_list_status = 1)
    ON CONFLICT (platform_id, list) DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT '*', 'platforms', count(*) FROM `platforms` WHERE 1 HAVING count(*) > 0
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'api_tokens', count(*) FROM `api_tokens` WHERE 1 GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'agents', count(*) FROM `agents` WHERE deleted_at IS NULL GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'agent_actions:' || agent_id, count(*) FROM `agent_actions` WHERE 1 GROUP BY platform_id, agent_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'agent_approvals', count(*) FROM `agent_actions` WHERE status = 'PENDING_APPROVAL' AND transaction_id IS NOT NULL GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'customer_external_accounts', count(*) FROM `external_accounts` WHERE customer_id IS NOT NULL AND deleted_at IS NULL GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'customer_external_accounts:' || customer_id, count(*) FROM `external_accounts` WHERE customer_id IS NOT NULL AND deleted_at IS NULL GROUP BY platform_id, customer_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'platform_external_accounts', count(*) FROM `external_accounts` WHERE customer_id IS NULL AND deleted_at IS NULL GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'customer_internal_accounts', count(*) FROM `internal_accounts` WHERE customer_id IS NOT NULL GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'beneficial_owners:' || customer_id, count(*) FROM `beneficial_owners` WHERE 1 GROUP BY platform_id, customer_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'verifications', count(*) FROM `verifications` WHERE 1 GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT platform_id, 'documents', count(*) FROM `documents` WHERE 1 GROUP BY platform_id
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT '*', 'uma_providers', count(*) FROM `uma_providers` WHERE 1 HAVING count(*) > 0
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
--> statement-breakpoint
INSERT INTO list_counts (platform_id, list, n)
  SELECT '*', 'uma_providers_allowed', count(*) FROM `uma_providers` WHERE allow_list_status = 1 HAVING count(*) > 0
  ON CONFLICT (platform_id, list) DO UPDATE SET n = excluded.n;
