CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`name` text NOT NULL,
	`permissions` text NOT NULL,
	`client_id` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_client_id_unique` ON `api_tokens` (`client_id`);--> statement-breakpoint
CREATE INDEX `api_tokens_platform_idx` ON `api_tokens` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `beneficial_owners` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`roles` text NOT NULL,
	`ownership_percentage` integer NOT NULL,
	`personal_info` text NOT NULL,
	`kyc_status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `beneficial_owners_customer_idx` ON `beneficial_owners` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE TABLE `bulk_import_chunks` (
	`job_id` text NOT NULL,
	`row_offset` integer NOT NULL,
	`rows` text NOT NULL,
	PRIMARY KEY(`job_id`, `row_offset`),
	FOREIGN KEY (`job_id`) REFERENCES `bulk_import_jobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `bulk_import_chunks_done` (
	`job_id` text NOT NULL,
	`row_offset` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`job_id`, `row_offset`)
);
--> statement-breakpoint
CREATE TABLE `bulk_import_errors` (
	`job_id` text NOT NULL,
	`row_number` integer NOT NULL,
	`code` text NOT NULL,
	`message` text NOT NULL,
	`details` text,
	`correlation_id` text NOT NULL,
	PRIMARY KEY(`job_id`, `row_number`)
);
--> statement-breakpoint
CREATE TABLE `bulk_import_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`status` text NOT NULL,
	`total` integer NOT NULL,
	`processed` integer DEFAULT 0 NOT NULL,
	`successful` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`columns` text NOT NULL,
	`file_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`platform_customer_id` text NOT NULL,
	`customer_type` text NOT NULL,
	`email` text,
	`uma_address` text NOT NULL,
	`region` text,
	`currencies` text DEFAULT '[]' NOT NULL,
	`verification_status` text NOT NULL,
	`info` text NOT NULL,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_platform_customer_id_uq` ON `customers` (`platform_id`,`platform_customer_id`) WHERE is_deleted = 0;--> statement-breakpoint
CREATE UNIQUE INDEX `customers_uma_address_uq` ON `customers` (`platform_id`,`uma_address`) WHERE is_deleted = 0;--> statement-breakpoint
CREATE INDEX `customers_platform_idx` ON `customers` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`document_holder` text NOT NULL,
	`document_type` text NOT NULL,
	`side` text,
	`country` text NOT NULL,
	`document_number` text,
	`issuing_authority` text,
	`file_name` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`object_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `documents_platform_idx` ON `documents` (`platform_id`,`id`);--> statement-breakpoint
CREATE INDEX `documents_holder_idx` ON `documents` (`platform_id`,`document_holder`,`id`);--> statement-breakpoint
CREATE TABLE `external_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text,
	`holder_id` text NOT NULL,
	`status` text NOT NULL,
	`currency` text NOT NULL,
	`account_type` text NOT NULL,
	`identifier` text NOT NULL,
	`account_info` text NOT NULL,
	`platform_account_id` text,
	`default_uma_deposit_account` integer DEFAULT false NOT NULL,
	`beneficiary_verification_status` text,
	`beneficiary_verified_data` text,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `external_accounts_platform_idx` ON `external_accounts` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `external_accounts_identifier_uq` ON `external_accounts` (`holder_id`,`account_type`,`identifier`,`currency`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE TABLE `internal_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`currency` text NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`private_enabled` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "internal_accounts_balance_non_negative" CHECK("internal_accounts"."balance" >= 0)
);
--> statement-breakpoint
CREATE INDEX `internal_accounts_platform_idx` ON `internal_accounts` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE INDEX `internal_accounts_customer_idx` ON `internal_accounts` (`customer_id`);--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`account_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`reference` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_entries_once_uq` ON `ledger_entries` (`reference`,`kind`,`account_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_account_idx` ON `ledger_entries` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_platform_idx` ON `ledger_entries` (`platform_id`);--> statement-breakpoint
CREATE TABLE `platforms` (
	`id` text PRIMARY KEY NOT NULL,
	`config_id` text NOT NULL,
	`name` text NOT NULL,
	`uma_domain` text NOT NULL,
	`proxy_uma_subdomain` text,
	`webhook_endpoint` text,
	`supported_currencies` text NOT NULL,
	`embedded_wallet_config` text,
	`is_regulated` integer NOT NULL,
	`clock_offset_ms` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sandbox_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`to_address` text NOT NULL,
	`from_address` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sandbox_emails_platform_idx` ON `sandbox_emails` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `uma_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`domain` text NOT NULL,
	`logo_url` text,
	`supported_regions` text NOT NULL,
	`supported_currencies` text NOT NULL,
	`lei` text,
	`allow_list_status` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uma_providers_domain_unique` ON `uma_providers` (`domain`);--> statement-breakpoint
CREATE INDEX `uma_providers_name_idx` ON `uma_providers` (`name`,`id`);--> statement-breakpoint
CREATE TABLE `verifications` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`verification_status` text NOT NULL,
	`errors` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`platform_id`) REFERENCES `platforms`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `verifications_platform_idx` ON `verifications` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE TABLE `wallet_auth_index` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`platform_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `due_transitions` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`subject_id` text NOT NULL,
	`kind` text NOT NULL,
	`from_status` text,
	`to_status` text,
	`data` text,
	`due_at` integer NOT NULL,
	`applied_at` integer,
	`applications` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	CONSTRAINT "due_transitions_applied_once" CHECK("due_transitions"."applications" <= 1)
);
--> statement-breakpoint
CREATE INDEX `due_transitions_due_idx` ON `due_transitions` (`applied_at`,`due_at`);--> statement-breakpoint
CREATE INDEX `due_transitions_platform_idx` ON `due_transitions` (`platform_id`,`applied_at`,`due_at`);--> statement-breakpoint
CREATE INDEX `due_transitions_subject_idx` ON `due_transitions` (`subject_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`platform_id` text NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`state` text NOT NULL,
	`claim_token` text NOT NULL,
	`locked_until` integer NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`platform_id`, `scope`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expiry_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_attempt_at` integer,
	`last_response_status` integer,
	`last_error` text,
	`url` text,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event_uq` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_platform_idx` ON `webhook_deliveries` (`platform_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`type` text NOT NULL,
	`timestamp` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_events_platform_idx` ON `webhook_events` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `agent_actions` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`quote_id` text,
	`transfer_details` text,
	`request` text NOT NULL,
	`transaction_id` text,
	`rejection_reason` text,
	`failure_reason` text,
	`policy_amount` integer NOT NULL,
	`counted` integer DEFAULT false NOT NULL,
	`day` text NOT NULL,
	`month` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agent_actions_agent_idx` ON `agent_actions` (`agent_id`,`id`);--> statement-breakpoint
CREATE INDEX `agent_actions_usage_idx` ON `agent_actions` (`agent_id`,`counted`,`day`);--> statement-breakpoint
CREATE INDEX `agent_actions_platform_status_idx` ON `agent_actions` (`platform_id`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `agent_device_codes` (
	`code_hash` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`platform_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`redeemed_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agent_device_codes_agent_idx` ON `agent_device_codes` (`agent_id`);--> statement-breakpoint
CREATE TABLE `agent_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`agent_id` text NOT NULL,
	`platform_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`revoked_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_tokens_hash_uq` ON `agent_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `agent_tokens_agent_idx` ON `agent_tokens` (`agent_id`);--> statement-breakpoint
CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`name` text NOT NULL,
	`is_paused` integer DEFAULT false NOT NULL,
	`is_connected` integer DEFAULT false NOT NULL,
	`policy` text NOT NULL,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agents_platform_idx` ON `agents` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `quotes` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`customer_id` text,
	`source_type` text NOT NULL,
	`source_account_id` text,
	`source` text NOT NULL,
	`destination` text NOT NULL,
	`locked_side` text NOT NULL,
	`sending_currency` text NOT NULL,
	`receiving_currency` text NOT NULL,
	`total_sending_amount` integer NOT NULL,
	`total_receiving_amount` integer NOT NULL,
	`exchange_rate` real NOT NULL,
	`fees_included` integer NOT NULL,
	`rate_details` text NOT NULL,
	`payment_instructions` text,
	`counterparty_information` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `quotes_platform_idx` ON `quotes` (`platform_id`,`id`);--> statement-breakpoint
CREATE TABLE `transaction_history` (
	`transaction_id` text NOT NULL,
	`version` integer NOT NULL,
	`platform_id` text NOT NULL,
	`from_status` text,
	`to_status` text NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`transaction_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `transaction_history_platform_idx` ON `transaction_history` (`platform_id`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`platform_id` text NOT NULL,
	`customer_id` text,
	`platform_customer_id` text NOT NULL,
	`type` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`source` text,
	`destination` text NOT NULL,
	`source_account_id` text,
	`destination_account_id` text,
	`sent_amount` integer,
	`sent_currency` text,
	`received_amount` integer NOT NULL,
	`received_currency` text NOT NULL,
	`exchange_rate` real,
	`fees` integer NOT NULL,
	`rate_details` text,
	`quote_id` text,
	`payment_instructions` text,
	`counterparty_information` text,
	`description` text,
	`reference` text NOT NULL,
	`sender_uma_address` text,
	`receiver_uma_address` text,
	`failure_reason` text,
	`refund` text,
	`settled_at` integer,
	`agent_id` text,
	`request_key` text,
	`approval` text,
	`scenario` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	CONSTRAINT "transactions_fees_non_negative" CHECK("transactions"."fees" >= 0),
	CONSTRAINT "transactions_amounts_positive" CHECK("transactions"."received_amount" > 0 AND ("transactions"."sent_amount" IS NULL OR "transactions"."sent_amount" > 0))
);
--> statement-breakpoint
CREATE INDEX `transactions_platform_idx` ON `transactions` (`platform_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_customer_idx` ON `transactions` (`platform_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_source_account_idx` ON `transactions` (`source_account_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_destination_account_idx` ON `transactions` (`destination_account_id`,`id`);--> statement-breakpoint
CREATE INDEX `transactions_quote_idx` ON `transactions` (`quote_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_request_key_uq` ON `transactions` (`platform_id`,`request_key`);