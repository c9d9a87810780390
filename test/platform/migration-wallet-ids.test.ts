import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, upTo } from '../support/migrations';

describe('migrations on a database of an earlier release', () => {
  it('0003 indexes the derived first-credential id of every embedded-wallet account that exists, and only those', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0002_'));
    const T = Date.parse('2025-11-01T00:00:00Z');
    const p = '0199b000-0000-7000-8000-000000000001';
    const account = (uuid: string, type: string) =>
      env.UPGRADE_DB.prepare(
        `INSERT INTO internal_accounts (id, platform_id, customer_id, type, status, currency, created_at, updated_at) VALUES (?, ?, NULL, ?, 'ACTIVE', 'USD', ?, ?)`,
      ).bind(`InternalAccount:${uuid}`, `Platform:${p}`, type, T, T);
    await env.UPGRADE_DB.batch([
      platform(p, 'wallets.example', T),
      account('0199b000-0000-7000-8000-0000000000a1', 'EMBEDDED_WALLET'),
      account('0199b000-0000-7000-8000-0000000000a2', 'INTERNAL_FIAT'),
    ]);
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const { results } = await env.UPGRADE_DB.prepare(
      'SELECT id, account_id AS accountId, platform_id AS platformId FROM wallet_auth_index',
    ).all();
    expect(results).toEqual([
      {
        id: 'AuthMethod:0199b000-0000-7000-8000-0000000000a1',
        accountId: 'InternalAccount:0199b000-0000-7000-8000-0000000000a1',
        platformId: `Platform:${p}`,
      },
    ]);
  });
});
