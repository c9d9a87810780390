-- umaDomain becomes unique across platforms, compared case-insensitively (two platforms must not hand out
-- the same UMA addresses). Earlier releases let platforms share a domain: of each group sharing one, the
-- oldest platform (earliest created_at, then id) keeps it, and each later one gets `dup-<its id's hex>.invalid`
-- (the column is NOT NULL; RFC 2606 reserves .invalid, so the value is unique and names no real domain) until
-- it sets a domain of its own with PATCH /config. Customers' stored UMA addresses are left as they are.
UPDATE `platforms`
SET `uma_domain` = 'dup-' || replace(substr(`id`, instr(`id`, ':') + 1), '-', '') || '.invalid',
  `updated_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE EXISTS (
  SELECT 1 FROM `platforms` AS `older`
  WHERE lower(`older`.`uma_domain`) = lower(`platforms`.`uma_domain`)
    AND (`older`.`created_at` < `platforms`.`created_at` OR (`older`.`created_at` = `platforms`.`created_at` AND `older`.`id` < `platforms`.`id`))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `platforms_uma_domain_uq` ON `platforms` (lower("uma_domain"));
