import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, upTo } from '../support/migrations';

const T = Date.parse('2026-11-01T00:00:00Z');
const P = 'Platform:0199c000-0000-7000-8000-000000000001';
const C = 'Customer:0199c000-0000-7000-8000-000000000001';

const run = (sql: string, ...params: unknown[]) => env.UPGRADE_DB.prepare(sql).bind(...params);

describe('upgrading a database of the previous release (invitations and KYC links)', () => {
  it('keeps its customers and verifications, and adds the two tables with their keys', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0029_'));
    await env.UPGRADE_DB.batch([
      platform('0199c000-0000-7000-8000-000000000001', 'c1.example', T),
      run(
        `INSERT INTO customers (id, platform_id, platform_customer_id, customer_type, uma_address, currencies, verification_status, info, created_at, updated_at)
         VALUES (?, ?, 'pc-1', 'INDIVIDUAL', '$pc-1@c1.example', '["USD"]', 'PENDING', '{}', ?, ?)`,
        C,
        P,
        T,
        T,
      ),
      run(
        `INSERT INTO verifications (id, platform_id, customer_id, verification_status, errors, created_at, updated_at)
         VALUES ('Verification:1', ?, ?, 'IN_PROGRESS', '[]', ?, ?)`,
        P,
        C,
        T,
        T,
      ),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    // What was there is untouched.
    expect(await run('SELECT verification_status AS s FROM customers WHERE id = ?', C).first()).toEqual({ s: 'PENDING' });
    expect(await run('SELECT count(*) AS n FROM verifications').first()).toEqual({ n: 1 });
    expect(await run('SELECT count(*) AS n FROM invitations').first()).toEqual({ n: 0 });
    expect(await run('SELECT count(*) AS n FROM kyc_links').first()).toEqual({ n: 0 });

    // The existing customer invites and gets links on the upgraded database.
    const invitation = (code: string, createdAt: number) =>
      run(
        `INSERT INTO invitations (code, platform_id, inviter_customer_id, inviter_uma, status, created_at, updated_at)
         VALUES (?, ?, ?, '$pc-1@c1.example', 'PENDING', ?, ?)`,
        code,
        P,
        C,
        createdAt,
        createdAt,
      );
    await env.UPGRADE_DB.batch([invitation('aaaa000000000001', T + 1), invitation('aaaa000000000002', T + 2)]);
    await expect(invitation('aaaa000000000001', T + 3).run()).rejects.toThrow(/UNIQUE constraint failed/);
    const page = await run('SELECT code FROM invitations WHERE platform_id = ? ORDER BY created_at DESC, code DESC LIMIT 1', P).all<{
      code: string;
    }>();
    expect(page.results).toEqual([{ code: 'aaaa000000000002' }]);
    const { results: plan } = await run(
      'EXPLAIN QUERY PLAN SELECT code FROM invitations WHERE platform_id = ? ORDER BY created_at DESC, code DESC LIMIT 1',
      P,
    ).all<{ detail: string }>();
    expect(plan.map((r) => r.detail).join('\n')).toMatch(/USING (COVERING )?INDEX invitations_platform_created_idx/);

    const link = (id: string, hash: string, key: string | null) =>
      run(
        `INSERT INTO kyc_links (id, platform_id, customer_id, secret_hash, idempotency_key, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        id,
        P,
        C,
        hash,
        key,
        T + 86_400_000,
        T,
      );
    await env.UPGRADE_DB.batch([link('KycLink:1', 'h1', 'k1'), link('KycLink:2', 'h2', null), link('KycLink:3', 'h3', null)]);
    // A secret's hash is one link's; a platform's Idempotency-Key names one link; keyless links are many.
    await expect(link('KycLink:4', 'h1', null).run()).rejects.toThrow(/UNIQUE constraint failed/);
    await expect(link('KycLink:5', 'h5', 'k1').run()).rejects.toThrow(/UNIQUE constraint failed/);
    expect(await run('SELECT count(*) AS n FROM kyc_links').first()).toEqual({ n: 3 });
  });
});
