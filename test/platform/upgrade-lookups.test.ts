import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { database } from '../../src/db/client';
import { receiverLookups } from '../../src/db/schema';
import { purgeExpiredLookups, quoteLookupLoad, usableLookup } from '../../src/payments/lookups-service';
import { platform, upTo } from '../support/migrations';

// Its own file: each test file gets fresh storage, so UPGRADE_DB starts empty here.

const T = Date.parse('2026-11-01T00:00:00Z');
const P = '0199d000-0000-7000-8000-0000000000c1';

const lookup = (n: number, expiresAt: number) => ({
  id: `LookupRequest:0199d000-0000-7000-8000-00000000000${n}`,
  platformId: `Platform:${P}`,
  receiverType: 'UMA_ADDRESS' as const,
  receiver: '$success.mxn@sandbox.uma.test',
  customerId: `Customer:${P}`,
  currencies: ['MXN'],
  requiredPayerFields: [{ name: 'TAX_ID', mandatory: true }],
  receiverName: 'Sandbox Receiver MXN',
  expiresAt,
  createdAt: T,
});

describe('upgrading a database of the previous release (receiver look-ups, 0029)', () => {
  it("adds the look-ups table beside the release's data, read by id and purged through the expiry index", async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0028_'));
    await env.UPGRADE_DB.batch([
      platform(P, 'c1.example', T),
      env.UPGRADE_DB.prepare(
        `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, uma_address, verification_status, info, created_at, updated_at)
         VALUES (?, ?, 'pc-1', 'INDIVIDUAL', '$pc-1@c1.example', 'APPROVED', '{"fullName":"Ana"}', ?, ?)`,
      ).bind(`Customer:${P}`, `Platform:${P}`, T, T),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    // The release's data is untouched.
    const customer = await env.UPGRADE_DB.prepare('SELECT id, info FROM customers').first();
    expect(customer).toEqual({ id: `Customer:${P}`, info: '{"fullName":"Ana"}' });

    const db = database(env.UPGRADE_DB);
    await db.insert(receiverLookups).values([lookup(1, T + 60_000), lookup(2, T - 1)]);
    const [found] = await quoteLookupLoad(db, sql`${`Platform:${P}`}`, lookup(1, 0).id);
    expect(usableLookup(found, T)).toEqual(lookup(1, T + 60_000));
    expect(() => usableLookup(found, T + 60_000)).toThrow(/Look-up not found/);
    expect(await quoteLookupLoad(db, sql`${'Platform:other'}`, lookup(1, 0).id)).toEqual([]);

    const plan = await env.UPGRADE_DB.prepare(
      'EXPLAIN QUERY PLAN SELECT rowid FROM receiver_lookups WHERE expires_at <= ? ORDER BY expires_at LIMIT 500',
    )
      .bind(T)
      .all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail).join('\n')).toMatch(/USING COVERING INDEX receiver_lookups_expiry_idx/);
    await purgeExpiredLookups(db, T);
    const left = await env.UPGRADE_DB.prepare('SELECT id FROM receiver_lookups').all<{ id: string }>();
    expect(left.results.map((r) => r.id)).toEqual([lookup(1, 0).id]);
  });
});
