-- The first EMAIL_OTP credential of an embedded wallet now has an id derived from the account id
-- ('AuthMethod:' + the account's uuid), indexed by the Worker when it creates the account. Index it for the
-- accounts that exist already; an account whose object made its first credential earlier keeps that one,
-- and this row then answers 404 like any unused id.
INSERT OR IGNORE INTO `wallet_auth_index` (`id`, `account_id`, `platform_id`, `created_at`)
SELECT 'AuthMethod:' || substr(`id`, instr(`id`, ':') + 1), `id`, `platform_id`, `created_at`
FROM `internal_accounts` WHERE `type` = 'EMBEDDED_WALLET';
