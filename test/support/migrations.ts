import { env } from 'cloudflare:test';

// Each test file gets its own storage: a file per migration test keeps the earlier release's database fresh.

/** The migrations up to and including `tag` (the schema an earlier release ran on). */
export const upTo = (tag: string) => env.TEST_MIGRATIONS.slice(0, env.TEST_MIGRATIONS.findIndex((m) => m.name.startsWith(tag)) + 1);

export const platform = (id: string, umaDomain: string, createdAt: number) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO platforms (id, config_id, name, uma_domain, supported_currencies, is_regulated, created_at, updated_at) VALUES (?, ?, ?, ?, '[]', 0, ?, ?)`,
  ).bind(`Platform:${id}`, `PlatformConfig:${id}`, `p-${id}`, umaDomain, createdAt, createdAt);
