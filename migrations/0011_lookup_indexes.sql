CREATE INDEX `beneficial_owners_customer_fk_idx` ON `beneficial_owners` (`customer_id`);--> statement-breakpoint
CREATE INDEX `external_accounts_customer_fk_idx` ON `external_accounts` (`customer_id`);--> statement-breakpoint
CREATE INDEX `verifications_customer_fk_idx` ON `verifications` (`customer_id`);--> statement-breakpoint
CREATE INDEX `agent_actions_transaction_idx` ON `agent_actions` (`transaction_id`);