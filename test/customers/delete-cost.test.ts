import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { newPlatform } from '../support/api';
import { customerWithAccounts } from '../support/payments';
import { measured } from '../perf/counting';

/**
 * DELETE /customers/{id} checks that none of the customer's money is held or in flight (delete-with-money.test.ts
 * covers the rules): the check reads what is in flight, never the customer's whole payment history (issue 24).
 */
describe('DELETE /customers/{id}: the money check reads what is in flight', () => {
  it('reads a bounded number of rows for a customer with 3,000 settled payments', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    // Settled payments of the customer, out of and into its USD account, written straight into the table.
    const prefix = `0000${crypto.randomUUID().slice(4, 23)}`;
    await env.DB.prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 3000)
       INSERT INTO transactions (id, platform_id, customer_id, platform_customer_id, type, kind, status, version,
         destination, source_account_id, destination_account_id, received_amount, received_currency, fees, reference,
         created_at, updated_at)
       SELECT printf('Transaction:%s-%012d', ?1, i), ?2, ?3, ?4, 'OUTGOING', 'TRANSFER_OUT', 'COMPLETED', 1, '{}',
         CASE WHEN i % 2 THEN ?5 END, CASE WHEN i % 2 = 0 THEN ?5 END, 100, 'USD', 0, printf('REF-%d', i), 0, 0
       FROM seq`,
    )
      .bind(prefix, p.id, customer.id, customer.platformCustomerId, accounts.USD!)
      .run();
    const res = await measured('DELETE', `/customers/${customer.id}`, { auth: p.auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The check's reads, each run again on its own for D1's rows_read.
    let read = 0;
    const checks = res.cost.sql.filter((s) => /^\s*(select|\(select)/i.test(s.query) && /"transactions"/.test(s.query));
    expect(checks.length).toBeGreaterThan(0);
    for (const s of checks) {
      const { meta } = await env.DB.prepare(s.query)
        .bind(...s.params)
        .all();
      read += meta.rows_read;
    }
    expect(read).toBeLessThan(100);
  });
});
