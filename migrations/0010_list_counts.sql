CREATE TABLE `list_counts` (
	`platform_id` text NOT NULL,
	`list` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`platform_id`, `list`)
);
