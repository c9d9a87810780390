-- A transaction's status history as a JSON column of its row (its own table before, a row and a key entry per
-- status). Existing transactions keep theirs in transaction_history until a change or the cron sweep carries it
-- over (src/payments/history.ts): nothing is copied here, however many transactions there are.
ALTER TABLE `transactions` ADD `history` text;
