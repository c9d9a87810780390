-- A platform's active customers' UMA addresses become unique case-insensitively (`$Alice@d` and `$alice@d` name
-- one receiver, and payments looked them up with lower()). Earlier releases let such twins coexist: of each
-- group of active customers of one platform whose addresses differ only in case, the oldest customer
-- (earliest created_at, then id) keeps its address: it held it first, and payments to any spelling reached it
-- (they took the first match in id order, ids being time-ordered); each later one keeps its local part on the domain
-- `dup-<its id's hex digits>.invalid` (the column is NOT NULL; RFC 2606 reserves .invalid, so the value is
-- unique and names no real domain) and its updatedAt changes, until the platform gives it a new
-- address with PATCH /customers/{customerId}. Deleted customers are outside the index and stay as they are.
DROP INDEX `customers_uma_address_uq`;--> statement-breakpoint
UPDATE `customers`
SET `uma_address` = substr(`uma_address`, 1, instr(`uma_address`, '@')) || 'dup-' || replace(substr(`id`, instr(`id`, ':') + 1), '-', '') || '.invalid',
  `updated_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE `is_deleted` = 0 AND EXISTS (
  SELECT 1 FROM `customers` AS `older`
  WHERE `older`.`platform_id` = `customers`.`platform_id` AND `older`.`is_deleted` = 0
    AND lower(`older`.`uma_address`) = lower(`customers`.`uma_address`)
    AND (`older`.`created_at` < `customers`.`created_at` OR (`older`.`created_at` = `customers`.`created_at` AND `older`.`id` < `customers`.`id`))
);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_uma_address_uq` ON `customers` (`platform_id`,lower("uma_address")) WHERE is_deleted = 0;
