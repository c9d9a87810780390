import { applyD1Migrations, env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { platform, upTo } from '../support/migrations';

const T = Date.parse('2025-11-01T00:00:00Z');
const id = (n: number) => `019a4000-0000-7000-8000-${String(n).padStart(12, '0')}`;
const P1 = `Platform:${id(1)}`;
const P2 = `Platform:${id(2)}`;
const C1 = `Customer:${id(11)}`;
const C2 = `Customer:${id(12)}`;
const C3 = `Customer:${id(13)}`;
const OWNER = `BeneficialOwner:${id(21)}`;

function row(table: string, values: Record<string, unknown>) {
  const all = { ...values, created_at: T, updated_at: T };
  const columns = Object.keys(all);
  return env.UPGRADE_DB.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).bind(
    ...Object.values(all),
  );
}
const customer = (customerId: string, platformId: string, n: number) =>
  row('customers', {
    id: customerId,
    platform_id: platformId,
    platform_customer_id: `c-${n}`,
    customer_type: 'INDIVIDUAL',
    uma_address: `$c${n}@x.example`,
    verification_status: 'APPROVED',
    info: '{}',
  });
const document = (n: number, platformId: string, holder: string) =>
  row('documents', {
    id: `Document:${id(n)}`,
    platform_id: platformId,
    document_holder: holder,
    document_type: 'PASSPORT',
    country: 'US',
    file_name: 'f.pdf',
    content_type: 'application/pdf',
    size: 1,
    object_key: `k-${n}`,
  });
const verification = (n: number, platformId: string, customerId: string) =>
  row('verifications', {
    id: `Verification:${id(n)}`,
    platform_id: platformId,
    customer_id: customerId,
    verification_status: 'APPROVED',
    errors: '[]',
  });
const agent = (n: number, platformId: string, customerId: string, deletedAt: number | null = null) =>
  row('agents', { id: `Agent:${id(n)}`, platform_id: platformId, customer_id: customerId, name: 'a', policy: '{}', deleted_at: deletedAt });

async function scopedCounts(): Promise<Record<string, number>> {
  const { results } = await env.UPGRADE_DB.prepare(
    `SELECT platform_id, list, n FROM list_counts WHERE list LIKE 'documents:%' OR list LIKE 'verifications:%' OR list LIKE 'agents:%'`,
  ).all<{ platform_id: string; list: string; n: number }>();
  return Object.fromEntries(results.filter((r) => r.n !== 0).map((r) => [`${r.platform_id} ${r.list}`, r.n]));
}

describe('migration 0027 (totals of the lists scoped to one record) on a database of the previous release', () => {
  it("counts each holder's documents, each customer's verifications and live agents already there, then keeps them", async () => {
    await applyD1Migrations(env.UPGRADE_DB, upTo('0026_'));
    await env.UPGRADE_DB.batch([
      platform(id(1), 'one.example', T),
      platform(id(2), 'two.example', T),
      customer(C1, P1, 11),
      customer(C2, P1, 12),
      customer(C3, P2, 13),
      row('beneficial_owners', {
        id: OWNER,
        platform_id: P1,
        customer_id: C2,
        roles: '[]',
        ownership_percentage: 30,
        personal_info: '{}',
        kyc_status: 'APPROVED',
      }),
      document(31, P1, C1),
      document(32, P1, C1),
      document(33, P1, OWNER),
      document(34, P2, C3),
      verification(41, P1, C1),
      verification(42, P1, C1),
      verification(43, P2, C3),
      agent(51, P1, C1),
      agent(52, P1, C1, T),
      agent(53, P1, C2),
    ]);
    expect(await scopedCounts()).toEqual({});

    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);

    expect(await scopedCounts()).toEqual({
      [`${P1} documents:${C1}`]: 2,
      [`${P1} documents:${OWNER}`]: 1,
      [`${P2} documents:${C3}`]: 1,
      [`${P1} verifications:${C1}`]: 2,
      [`${P2} verifications:${C3}`]: 1,
      [`${P1} agents:${C1}`]: 1,
      [`${P1} agents:${C2}`]: 1,
    });
    // The platform-wide counts of 0013 still hold, through the replaced triggers too.
    const documents = await env.UPGRADE_DB.prepare(`SELECT n FROM list_counts WHERE platform_id = ? AND list = 'documents'`)
      .bind(P1)
      .first('n');
    expect(documents).toBe(3);

    // From now on the triggers keep them: a document deleted, a verification added, an agent deleted and one restored.
    await env.UPGRADE_DB.batch([
      env.UPGRADE_DB.prepare('DELETE FROM documents WHERE id = ?').bind(`Document:${id(31)}`),
      verification(44, P1, C2),
      env.UPGRADE_DB.prepare('UPDATE agents SET deleted_at = ? WHERE id = ?').bind(T, `Agent:${id(53)}`),
      env.UPGRADE_DB.prepare('UPDATE agents SET deleted_at = NULL WHERE id = ?').bind(`Agent:${id(52)}`),
    ]);
    expect(await scopedCounts()).toEqual({
      [`${P1} documents:${C1}`]: 1,
      [`${P1} documents:${OWNER}`]: 1,
      [`${P2} documents:${C3}`]: 1,
      [`${P1} verifications:${C1}`]: 2,
      [`${P1} verifications:${C2}`]: 1,
      [`${P2} verifications:${C3}`]: 1,
      [`${P1} agents:${C1}`]: 2,
    });
    const agents = await env.UPGRADE_DB.prepare(`SELECT n FROM list_counts WHERE platform_id = ? AND list = 'agents'`).bind(P1).first('n');
    expect(agents).toBe(2);
  });
});
