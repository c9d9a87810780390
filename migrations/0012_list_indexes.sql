CREATE INDEX `api_tokens_platform_name_idx` ON `api_tokens` (`platform_id`,`name`,`id`);--> statement-breakpoint
CREATE INDEX `api_tokens_platform_created_idx` ON `api_tokens` (`platform_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `api_tokens_platform_updated_idx` ON `api_tokens` (`platform_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `external_accounts_platform_live_idx` ON `external_accounts` (`platform_id`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `external_accounts_platform_currency_idx` ON `external_accounts` (`platform_id`,`currency`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `external_accounts_platform_customer_currency_idx` ON `external_accounts` (`platform_id`,`customer_id`,`currency`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `internal_accounts_platform_id_idx` ON `internal_accounts` (`platform_id`,`id`) WHERE customer_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `internal_accounts_platform_currency_idx` ON `internal_accounts` (`platform_id`,`currency`,`id`) WHERE customer_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `internal_accounts_platform_type_idx` ON `internal_accounts` (`platform_id`,`type`,`id`) WHERE customer_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `sandbox_emails_platform_to_idx` ON `sandbox_emails` (`platform_id`,`to_address`,`id`);--> statement-breakpoint
CREATE INDEX `verifications_platform_id_idx` ON `verifications` (`platform_id`,`id`);--> statement-breakpoint
CREATE INDEX `verifications_platform_status_idx` ON `verifications` (`platform_id`,`verification_status`,`id`);--> statement-breakpoint
CREATE INDEX `agent_actions_agent_status_idx` ON `agent_actions` (`agent_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `agent_actions_platform_status_agent_idx` ON `agent_actions` (`platform_id`,`status`,`agent_id`,`id`);--> statement-breakpoint
CREATE INDEX `agent_actions_platform_status_customer_idx` ON `agent_actions` (`platform_id`,`status`,`customer_id`,`id`);--> statement-breakpoint
CREATE INDEX `agent_actions_platform_status_created_idx` ON `agent_actions` (`platform_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `agents_platform_live_idx` ON `agents` (`platform_id`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `agents_platform_customer_idx` ON `agents` (`platform_id`,`customer_id`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `agents_platform_paused_idx` ON `agents` (`platform_id`,`is_paused`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `agents_platform_connected_idx` ON `agents` (`platform_id`,`is_connected`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `agents_platform_created_idx` ON `agents` (`platform_id`,`created_at`,`id`) WHERE deleted_at IS NULL;--> statement-breakpoint
CREATE INDEX `agents_platform_updated_idx` ON `agents` (`platform_id`,`updated_at`,`id`) WHERE deleted_at IS NULL;