DROP INDEX `agent_actions_usage_idx`;--> statement-breakpoint
CREATE INDEX `agent_actions_usage_month_idx` ON `agent_actions` (`agent_id`,`counted`,`month`,`day`);