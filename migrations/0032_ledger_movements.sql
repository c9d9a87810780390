-- The ledger as one row per movement (two entries before): WITHOUT ROWID, so a movement is one b-tree entry
-- keyed platform first. ledger_entries stays, written no more: the cron sweep converts its pairs in chunks
-- (src/ledger/backfill.ts), so an upgrade copies nothing in one statement however large the ledger.
CREATE TABLE `ledger_movements` (
	`platform_id` text NOT NULL,
	`reference` text NOT NULL,
	`kind` text NOT NULL,
	`from_account_id` text NOT NULL,
	`to_account_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`platform_id`, `reference`, `kind`),
	CONSTRAINT "ledger_movements_amount_positive" CHECK("ledger_movements"."amount" > 0),
	CONSTRAINT "ledger_movements_two_accounts" CHECK("ledger_movements"."from_account_id" <> "ledger_movements"."to_account_id")
) WITHOUT ROWID;
