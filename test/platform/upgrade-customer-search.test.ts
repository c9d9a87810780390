import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, searchFound, upTo } from '../support/migrations';

const T = Date.parse('2026-11-01T00:00:00Z');
const P = (n: number) => `Platform:019a5000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const C = (n: number) => `Customer:019a5000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** A customer row as the previous release wrote it. */
const customer = (n: number, platformId: string, info: Record<string, unknown>, email: string | null = null) =>
  env.UPGRADE_DB.prepare(
    `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, email, uma_address, currencies,
       verification_status, info, is_deleted, created_at, updated_at) VALUES (?, ?, ?, 'INDIVIDUAL', ?, ?, '["USD"]', 'UNVERIFIED', ?, 0, ?, ?)`,
  ).bind(C(n), platformId, `pc-${n}`, email, `$pc-${n}@p.test`, JSON.stringify(info), T + n, T + n);

describe('migration 0028 (the customer search index scoped by platform) on a database of the previous release', () => {
  it("indexes each platform's customers apart, serves terms of any length, and keeps the index through later writes", async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0027_'));
    await env.UPGRADE_DB.batch([
      platform(P(1).slice('Platform:'.length), 'one.test', T),
      platform(P(2).slice('Platform:'.length), 'two.test', T),
      // Inserted out of id order: the index keeps id order within a platform.
      customer(3, P(1), { fullName: 'Wei Wu' }, 'wei@example.com'),
      customer(1, P(1), { fullName: 'Jane Smith' }, 'jane@example.com'),
      customer(2, P(1), { businessInfo: { legalName: 'Smithy Works' } }),
      customer(4, P(2), { fullName: 'Other Smith' }, 'other@wu.test'),
    ]);

    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    expect(await searchFound(env.UPGRADE_DB, P(1), 'smith')).toEqual([C(1), C(2)]);
    expect(await searchFound(env.UPGRADE_DB, P(2), 'smith')).toEqual([C(4)]);
    expect(await searchFound(env.UPGRADE_DB, P(1), 'EXAMPLE.COM')).toEqual([C(1), C(3)]);
    expect(await searchFound(env.UPGRADE_DB, P(1), 'pc-2')).toEqual([C(2)]);
    // One and two characters.
    expect(await searchFound(env.UPGRADE_DB, P(1), 'Wu')).toEqual([C(3)]);
    expect(await searchFound(env.UPGRADE_DB, P(2), 'wu')).toEqual([C(4)]);
    expect(await searchFound(env.UPGRADE_DB, P(1), 'y')).toEqual([C(2)]);
    expect(await searchFound(env.UPGRADE_DB, P(1), 'nobody')).toEqual([]);

    // Later writes: a new customer comes after those already there, a rename and a deletion follow, and a new
    // platform gets a range of its own.
    await customer(0, P(1), { fullName: 'Newest Smith' }).run();
    await env.UPGRADE_DB.prepare(`UPDATE customers SET info = json_object('fullName', 'Jane Doe') WHERE id = ?`).bind(C(1)).run();
    await env.UPGRADE_DB.prepare(`DELETE FROM customers WHERE id = ?`).bind(C(2)).run();
    await platform(P(3).slice('Platform:'.length), 'three.test', T).run();
    await customer(5, P(3), { fullName: 'Third Smith' }).run();
    expect(await searchFound(env.UPGRADE_DB, P(1), 'smith')).toEqual([C(0)]);
    expect(await searchFound(env.UPGRADE_DB, P(1), 'jane doe')).toEqual([C(1)]);
    expect(await searchFound(env.UPGRADE_DB, P(1), 'Do')).toEqual([C(1)]);
    expect(await searchFound(env.UPGRADE_DB, P(3), 'smith')).toEqual([C(5)]);
    expect(await searchFound(env.UPGRADE_DB, P(2), 'smith')).toEqual([C(4)]);
    // Nothing left behind for the deleted customer.
    const rows = await env.UPGRADE_DB.prepare('SELECT count(*) AS n FROM customer_search_rows WHERE customer_id = ?').bind(C(2)).first('n');
    expect(rows).toBe(0);
  });
});
