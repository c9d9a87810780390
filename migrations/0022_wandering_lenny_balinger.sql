DROP INDEX `transactions_request_key_uq`;--> statement-breakpoint
ALTER TABLE `transactions` DROP COLUMN `request_key`;