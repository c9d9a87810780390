import { env } from 'cloudflare:test';
import { searchIndexQuery } from '../../src/customers/list';

// Each test file gets its own storage: a file per migration test keeps the earlier release's database fresh.

/** The migrations up to and including `tag` (the schema an earlier release ran on). */
export const upTo = (tag: string) => env.TEST_MIGRATIONS.slice(0, env.TEST_MIGRATIONS.findIndex((m) => m.name.startsWith(tag)) + 1);

export const platform = (id: string, umaDomain: string, createdAt: number) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO platforms (id, config_id, name, uma_domain, supported_currencies, is_regulated, created_at, updated_at) VALUES (?, ?, ?, ?, '[]', 0, ?, ?)`,
  ).bind(`Platform:${id}`, `PlatformConfig:${id}`, `p-${id}`, umaDomain, createdAt, createdAt);

/**
 * The customers of `platformId` the search index finds for `term` (the rows holding it, before the service's exact
 * rule), in the index's order: the query GET /customers runs (src/customers/list.ts), without the customer filters.
 */
export async function searchFound(db: D1Database, platformId: string, term: string): Promise<string[]> {
  const { table, match } = searchIndexQuery(term);
  const { results } = await db
    .prepare(
      `SELECT r.customer_id AS id FROM ${table} JOIN customer_search_rows r ON r.n = ${table}.rowid
       WHERE ${table} MATCH replace(?, char(1), (SELECT 'p' || n || 'z' FROM customer_search_ranges WHERE platform_id = ?)) ORDER BY ${table}.rowid`,
    )
    .bind(match, platformId)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}
