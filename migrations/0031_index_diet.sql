-- Index diet: indexes nothing reads (transactions by quote, the ledger by account), the history's and the events'
-- platform indexes (reset and snapshots reach those rows through their transactions and deliveries), and UMA
-- address indexes without their NULLs.
DROP INDEX `ledger_entries_account_idx`;--> statement-breakpoint
DROP INDEX `webhook_events_platform_idx`;--> statement-breakpoint
DROP INDEX `transaction_history_platform_idx`;--> statement-breakpoint
DROP INDEX `transactions_quote_idx`;--> statement-breakpoint
-- UMA address filters: most payments have no UMA address on either end, so their NULLs leave these indexes
-- (partial: an equality filter implies IS NOT NULL, so SQLite still serves it from them).
DROP INDEX `transactions_sender_uma_idx`;--> statement-breakpoint
CREATE INDEX `transactions_sender_uma_idx` ON `transactions` (`platform_id`,`sender_uma_lc`,`created_at`,`id`) WHERE `sender_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `transactions_receiver_uma_idx`;--> statement-breakpoint
CREATE INDEX `transactions_receiver_uma_idx` ON `transactions` (`platform_id`,`receiver_uma_lc`,`created_at`,`id`) WHERE `receiver_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `quotes_receiving_uma_idx`;--> statement-breakpoint
CREATE INDEX `quotes_receiving_uma_idx` ON `quotes` (`platform_id`,`receiving_uma_lc`,`created_at`,`id`) WHERE `receiving_uma_lc` IS NOT NULL;--> statement-breakpoint
DROP INDEX `quotes_sending_uma_idx`;--> statement-breakpoint
CREATE INDEX `quotes_sending_uma_idx` ON `quotes` (`platform_id`,`sending_uma_lc`,`created_at`,`id`) WHERE `sending_uma_lc` IS NOT NULL;
