import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, upTo } from '../support/migrations';

const T = Date.parse('2025-10-01T00:00:00Z');
const id = (n: number) => `0199a000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const P1 = `Platform:${id(1)}`;
const P2 = `Platform:${id(2)}`;

/** One row of `table` with these columns (and the times every table has). */
function row(table: string, values: Record<string, unknown>) {
  const all = { ...values, created_at: T, updated_at: T };
  const columns = Object.keys(all);
  return env.UPGRADE_DB.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).bind(
    ...Object.values(all),
  );
}

const customer = (n: number, platformId: string) =>
  row('customers', {
    id: `Customer:${id(n)}`,
    platform_id: platformId,
    platform_customer_id: `c-${n}`,
    customer_type: 'INDIVIDUAL',
    uma_address: `$c${n}@x.example`,
    verification_status: 'APPROVED',
    info: '{}',
  });
const token = (n: number, platformId: string) =>
  row('api_tokens', {
    id: `Token:${id(n)}`,
    platform_id: platformId,
    name: 't',
    permissions: '[]',
    client_id: `client-${n}`,
    secret_hash: 'h',
  });
const agent = (n: number, platformId: string, customerId: string, deletedAt: number | null = null) =>
  row('agents', { id: `Agent:${id(n)}`, platform_id: platformId, customer_id: customerId, name: 'a', policy: '{}', deleted_at: deletedAt });
const action = (n: number, agentId: string, customerId: string, status: string, transactionId: string | null) =>
  row('agent_actions', {
    id: `AgentAction:${id(n)}`,
    platform_id: P1,
    agent_id: agentId,
    customer_id: customerId,
    type: 'TRANSFER_OUT',
    status,
    request: '{}',
    transaction_id: transactionId,
    policy_amount: 1,
    day: '2025-10-01',
    month: '2025-10',
  });
const external = (n: number, platformId: string, customerId: string | null, deletedAt: number | null = null) =>
  row('external_accounts', {
    id: `ExternalAccount:${id(n)}`,
    platform_id: platformId,
    customer_id: customerId,
    holder_id: customerId ?? platformId,
    status: 'ACTIVE',
    currency: 'USD',
    account_type: 'US_ACCOUNT',
    identifier: `acct-${n}`,
    account_info: '{}',
    deleted_at: deletedAt,
  });
const internal = (n: number, platformId: string, customerId: string | null) =>
  row('internal_accounts', {
    id: `InternalAccount:${id(n)}`,
    platform_id: platformId,
    customer_id: customerId,
    type: 'INTERNAL_FIAT',
    status: 'ACTIVE',
    currency: 'USD',
  });
const owner = (n: number, customerId: string) =>
  row('beneficial_owners', {
    id: `BeneficialOwner:${id(n)}`,
    platform_id: P1,
    customer_id: customerId,
    roles: '[]',
    ownership_percentage: 10,
    personal_info: '{}',
    kyc_status: 'APPROVED',
  });
const verification = (n: number, platformId: string, customerId: string) =>
  row('verifications', {
    id: `Verification:${id(n)}`,
    platform_id: platformId,
    customer_id: customerId,
    verification_status: 'APPROVED',
    errors: '[]',
  });
const document = (n: number, holder: string) =>
  row('documents', {
    id: `Document:${id(n)}`,
    platform_id: P1,
    document_holder: holder,
    document_type: 'PASSPORT',
    country: 'US',
    file_name: 'f.pdf',
    content_type: 'application/pdf',
    size: 1,
    object_key: `k-${n}`,
  });

async function counts(): Promise<Record<string, number>> {
  const { results } = await env.UPGRADE_DB.prepare('SELECT platform_id, list, n FROM list_counts').all<{
    platform_id: string;
    list: string;
    n: number;
  }>();
  return Object.fromEntries(results.map((r) => [`${r.platform_id} ${r.list}`, r.n]));
}

describe('lists: migrating a database of the previous release', () => {
  it('fills the maintained counts for the rows already there, and keeps them after', async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0010_'));
    const c1 = `Customer:${id(11)}`;
    const c2 = `Customer:${id(12)}`;
    const c3 = `Customer:${id(13)}`;
    const a1 = `Agent:${id(31)}`;
    const a2 = `Agent:${id(32)}`;
    await env.UPGRADE_DB.batch([
      platform(id(1), 'one.example', T),
      platform(id(2), 'two.example', T),
      customer(11, P1),
      customer(12, P1),
      customer(13, P2),
      token(21, P1),
      token(22, P1),
      token(23, P2),
      agent(31, P1, c1),
      agent(32, P1, c2),
      agent(33, P1, c2, T),
      agent(34, P2, c3),
      action(41, a1, c1, 'PENDING_APPROVAL', `Transaction:${id(91)}`),
      action(42, a1, c1, 'APPROVED', `Transaction:${id(92)}`),
      action(43, a1, c1, 'PENDING_APPROVAL', null),
      action(44, a2, c2, 'PENDING_APPROVAL', `Transaction:${id(93)}`),
      external(51, P1, c1),
      external(52, P1, c1),
      external(53, P1, c1, T),
      external(54, P1, c2),
      external(55, P1, null),
      external(56, P2, c3),
      internal(61, P1, c1),
      internal(62, P1, c2),
      internal(63, P1, null),
      internal(64, P2, c3),
      owner(71, c1),
      owner(72, c1),
      owner(73, c2),
      verification(81, P1, c1),
      verification(82, P2, c3),
      document(85, c1),
      document(86, c2),
    ]);
    const providers = await env.UPGRADE_DB.prepare('SELECT count(*) AS n, sum(allow_list_status = 1) AS allowed FROM uma_providers').first<{
      n: number;
      allowed: number;
    }>();

    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    const mine = Object.fromEntries(Object.entries(await counts()).filter(([k]) => !/ (customers|transactions|quotes|webhook)/.test(k)));
    expect(mine).toEqual({
      '* platforms': 2,
      '* uma_providers': providers!.n,
      '* uma_providers_allowed': providers!.allowed,
      [`${P1} api_tokens`]: 2,
      [`${P2} api_tokens`]: 1,
      [`${P1} agents`]: 2,
      [`${P2} agents`]: 1,
      [`${P1} agent_actions:${a1}`]: 3,
      [`${P1} agent_actions:${a2}`]: 1,
      [`${P1} agent_approvals`]: 2,
      [`${P1} customer_external_accounts`]: 3,
      [`${P1} customer_external_accounts:${c1}`]: 2,
      [`${P1} customer_external_accounts:${c2}`]: 1,
      [`${P1} platform_external_accounts`]: 1,
      [`${P2} customer_external_accounts`]: 1,
      [`${P2} customer_external_accounts:${c3}`]: 1,
      [`${P1} customer_internal_accounts`]: 2,
      [`${P2} customer_internal_accounts`]: 1,
      [`${P1} beneficial_owners:${c1}`]: 2,
      [`${P1} beneficial_owners:${c2}`]: 1,
      [`${P1} verifications`]: 1,
      [`${P2} verifications`]: 1,
      [`${P1} documents`]: 2,
      // 0027: the lists scoped to one record.
      [`${P1} documents:${c1}`]: 1,
      [`${P1} documents:${c2}`]: 1,
      [`${P1} verifications:${c1}`]: 1,
      [`${P2} verifications:${c3}`]: 1,
      [`${P1} agents:${c1}`]: 1,
      [`${P1} agents:${c2}`]: 1,
      [`${P2} agents:${c3}`]: 1,
    });

    // The triggers keep them from now on: a new token, an approval decided, an account deleted, an agent restored.
    await env.UPGRADE_DB.batch([
      token(24, P1),
      env.UPGRADE_DB.prepare(`UPDATE agent_actions SET status = 'APPROVED' WHERE id = ?`).bind(`AgentAction:${id(41)}`),
      env.UPGRADE_DB.prepare('UPDATE external_accounts SET deleted_at = ? WHERE id = ?').bind(T, `ExternalAccount:${id(51)}`),
      env.UPGRADE_DB.prepare('UPDATE agents SET deleted_at = NULL WHERE id = ?').bind(`Agent:${id(33)}`),
    ]);
    expect(await counts()).toMatchObject({
      [`${P1} api_tokens`]: 3,
      [`${P1} agent_approvals`]: 1,
      [`${P1} customer_external_accounts`]: 2,
      [`${P1} customer_external_accounts:${c1}`]: 1,
      [`${P1} agents`]: 3,
      [`${P1} agents:${c2}`]: 2,
    });
  });
});
