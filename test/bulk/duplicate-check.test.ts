import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { takenByStatements } from '../../src/customers/bulk-chunks';
import { newPlatform } from '../support/api';

/**
 * Each chunk of a bulk import (500 rows) checks its platformCustomerIds and UMA addresses against the platform's
 * customers before inserting: the check reads about the chunk, not the platform (issue 24 measured an OR of
 * two IN lists reading ~1.09M rows per chunk at 1M customers).
 */
describe('bulk import: the duplicate check of a chunk', () => {
  it('probes the unique indexes once per wanted value and reads about the chunk among 6,000 customers', async () => {
    const p = await newPlatform();
    // Customers written straight into the table: row-0 … row-5999, addresses $Row-<i>@<domain>.
    const prefix = `0000${crypto.randomUUID().slice(4, 23)}`;
    await env.DB.prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < 5999)
       INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, uma_address, currencies,
         verification_status, info, is_deleted, created_at, updated_at)
       SELECT printf('Customer:%s-%012d', ?1, i), ?2, printf('row-%d', i), 'INDIVIDUAL', printf('$Row-%d@%s', i, ?3),
         '["USD"]', 'UNVERIFIED', '{}', 0, 0, 0 FROM seq`,
    )
      .bind(prefix, p.id, p.umaDomain)
      .run();
    const db = database(env.DB);
    // A chunk of 500 rows: half the ids taken (row-0 … row-5976), a quarter of the addresses (in another case).
    const wanted = Array.from({ length: 500 }, (_, i) => ({
      platformCustomerId: `row-${i * 24}`,
      umaAddress: `$ROW-${i * 24 + (i % 2) * 100_000}@${p.umaDomain}`,
    }));
    const plans: string[] = [];
    const found: number[] = [];
    const read: number[] = [];
    for (const statement of takenByStatements(db, p.id, wanted)) {
      const { sql, params } = statement.toSQL();
      const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      plans.push(results.map((r) => r.detail).join(' | '));
      const run = await env.DB.prepare(sql)
        .bind(...params)
        .all();
      found.push(run.results.length);
      read.push(run.meta.rows_read);
    }
    expect(plans).toEqual([
      expect.stringMatching(
        /SEARCH customers USING (COVERING )?INDEX customers_platform_customer_id_(uq|idx) \(platform_id=\? AND platform_customer_id=\?\)/,
      ),
      expect.stringMatching(/SEARCH customers USING INDEX customers_uma_address_(uq|idx) \(platform_id=\? AND <expr>=\?\)/),
    ]);
    for (const plan of plans) expect(plan).not.toMatch(/SCAN customers|TEMP B-TREE/);
    expect(found).toEqual([250, 125]);
    // The 500 wanted values, their matches and a constant: never the 6,000 customers.
    for (const rows of read) expect(rows).toBeLessThanOrEqual(2 * 500 + 50);
  });
});
