import { describe, expect, it } from 'vitest';
import { api, newPlatform, OPERATOR, type TestPlatform } from '../support/api';
import { newAgent, policy } from '../support/agents';
import { accountsOf, ADDRESS, businessBody, createCustomer, postForm } from '../support/customers';
import { externalAccount } from '../support/payments';
import { measured } from './counting';

/**
 * The totals of the lists that keep a maintained count (`list_counts`, kept by triggers) are exact after every
 * kind of write (create, delete, soft delete, upsert, sandbox reset), and reading them counts no rows: no
 * statement of the request is a `count(…)` over the tenant's table.
 */
async function total(path: string, auth: string): Promise<number | undefined> {
  const res = await measured('GET', path, { auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(
    res.cost.sql.filter((s) => /\bcount\(/i.test(s.query)).map((s) => s.query),
    path,
  ).toEqual([]);
  return res.body.totalCount;
}

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
const upload = (p: TestPlatform, holder: string) =>
  postForm('/documents', p.auth, [
    ...Object.entries({ documentHolder: holder, documentType: 'PASSPORT', country: 'US' }).map(([name, value]) => ({ name, value })),
    { name: 'file', filename: 'passport.pdf', contentType: 'application/pdf', data: PDF },
  ]);

const owner = (customerId: string) => ({
  customerId,
  roles: ['UBO'],
  ownershipPercentage: 30,
  personalInfo: {
    firstName: 'Jane',
    lastName: 'Smith',
    birthDate: '1978-06-15',
    nationality: 'US',
    address: ADDRESS,
    idType: 'SSN',
    identifier: '123-45-6789',
  },
});

describe('list totals come from maintained counts', () => {
  it("a platform's lists: tokens, agents, accounts, owners, verifications, documents; then a sandbox reset", async () => {
    const p = await newPlatform();
    const b = await createCustomer(p, businessBody());
    const c = await createCustomer(p);

    // Tokens: the initial one, two more, one deleted.
    const t1 = (await api('POST', '/tokens', { auth: p.auth, body: { name: 'a', permissions: ['VIEW'] } })).body;
    await api('POST', '/tokens', { auth: p.auth, body: { name: 'b', permissions: ['VIEW'] } });
    expect((await api('DELETE', `/tokens/${t1.id}`, { auth: p.auth })).status).toBe(204);
    expect(await total('/tokens', p.auth)).toBe(2);

    // Agents: two, one deleted (soft).
    const a1 = await newAgent({ p });
    const a2 = await newAgent({ p });
    expect((await api('DELETE', `/agents/${a1.agentId}`, { auth: p.auth })).status).toBe(204);
    expect(await total('/agents', p.auth)).toBe(1);

    // External accounts: the customers' (all, per customer), the platform's; one deleted (soft).
    const e1 = await externalAccount(p, b.id, 'USD', '001');
    await externalAccount(p, b.id, 'EUR', '001');
    await externalAccount(p, c.id, 'USD', '002');
    await externalAccount(p, undefined, 'USD', '003');
    expect((await api('DELETE', `/customers/external-accounts/${e1}`, { auth: p.auth })).status).toBe(204);
    expect(await total('/customers/external-accounts', p.auth)).toBe(2);
    expect(await total(`/customers/external-accounts?customerId=${b.id}`, p.auth)).toBe(1);
    expect(await total(`/customers/external-accounts?customerId=${c.id}`, p.auth)).toBe(1);
    expect(await total('/platform/external-accounts', p.auth)).toBe(1);

    // Internal accounts: every customer's (the agents' customers too).
    const customers = [b.id, c.id, a1.customerId, a2.customerId];
    const accounts = (await Promise.all(customers.map((id) => accountsOf(p, id)))).flat();
    expect(await total('/customers/internal-accounts', p.auth)).toBe(accounts.length);

    // Beneficial owners (per customer), verifications, documents.
    for (let i = 0; i < 2; i++) expect((await api('POST', '/beneficial-owners', { auth: p.auth, body: owner(b.id) })).status).toBe(201);
    expect(await total(`/beneficial-owners?customerId=${b.id}`, p.auth)).toBe(2);
    expect(await total(`/beneficial-owners?customerId=${c.id}`, p.auth)).toBe(0);
    await api('POST', '/verifications', { auth: p.auth, body: { customerId: c.id } });
    expect(await total('/verifications', p.auth)).toBe(1);
    const d1 = (await upload(p, c.id)).body;
    await upload(p, b.id);
    expect((await api('DELETE', `/documents/${d1.id}`, { auth: p.auth })).status).toBe(204);
    expect(await total('/documents', p.auth)).toBe(1);

    // Another platform's counts are its own.
    const q = await newPlatform();
    expect(await total('/tokens', q.auth)).toBe(1);
    expect(await total('/agents', q.auth)).toBe(0);
    expect(await total('/customers/external-accounts', q.auth)).toBe(0);

    // Sandbox reset deletes everything but the tokens: every count follows.
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
    expect(await total('/tokens', p.auth)).toBe(2);
    for (const path of [
      '/agents',
      '/customers/external-accounts',
      `/customers/external-accounts?customerId=${b.id}`,
      '/platform/external-accounts',
      '/customers/internal-accounts',
      '/verifications',
      '/documents',
    ]) {
      expect(await total(path, p.auth), path).toBe(0);
    }
  });

  it("lists scoped to one record carry its total: a holder's documents, a customer's verifications and agents", async () => {
    const p = await newPlatform();
    const b = await createCustomer(p, businessBody());
    const c = await createCustomer(p);
    const o = (await api('POST', '/beneficial-owners', { auth: p.auth, body: owner(b.id) })).body;
    const d1 = (await upload(p, c.id)).body;
    await upload(p, c.id);
    await upload(p, o.id);
    expect((await api('DELETE', `/documents/${d1.id}`, { auth: p.auth })).status).toBe(204);
    expect(await total(`/documents?documentHolder=${c.id}`, p.auth)).toBe(1);
    expect(await total(`/documents?documentHolder=${o.id}`, p.auth)).toBe(1);
    expect(await total(`/documents?documentHolder=${b.id}`, p.auth)).toBe(0);

    for (let i = 0; i < 2; i++) await api('POST', '/verifications', { auth: p.auth, body: { customerId: c.id } });
    expect(await total(`/verifications?customerId=${c.id}`, p.auth)).toBe(2);
    expect(await total(`/verifications?customerId=${b.id}`, p.auth)).toBe(0);
    // With a status too the scope is no longer one record's: no total.
    expect(await total(`/verifications?customerId=${c.id}&verificationStatus=APPROVED`, p.auth)).toBeUndefined();

    const a1 = await newAgent({ p });
    const a2 = await newAgent({ p });
    const second = await api('POST', '/agents', { auth: p.auth, body: { name: 'Second', customerId: a1.customerId, policy: policy() } });
    expect(second.status).toBe(201);
    expect((await api('DELETE', `/agents/${a2.agentId}`, { auth: p.auth })).status).toBe(204);
    expect(await total(`/agents?customerId=${a1.customerId}`, p.auth)).toBe(2);
    expect(await total(`/agents?customerId=${a2.customerId}`, p.auth)).toBe(0);
    expect(await total(`/agents?customerId=${a1.customerId}&isPaused=false`, p.auth)).toBeUndefined();

    // Sandbox reset deletes them all: every scoped count follows.
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
    for (const path of [`/documents?documentHolder=${c.id}`, `/verifications?customerId=${c.id}`, `/agents?customerId=${a1.customerId}`]) {
      expect(await total(path, p.auth), path).toBe(0);
    }
  });

  it('a filter on a field unique among live customers (platformCustomerId, umaAddress) counts its one row through that index', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    // Others around it, so that a count over the platform's customers would show in the rows read.
    await Promise.all(Array.from({ length: 20 }, () => createCustomer(p)));
    for (const [path, n] of [
      [`/customers?platformCustomerId=${c.platformCustomerId}`, 1],
      [`/customers?umaAddress=${encodeURIComponent(c.umaAddress)}`, 1],
      [`/customers?platformCustomerId=${c.platformCustomerId}&customerType=BUSINESS`, 0],
      ['/customers?platformCustomerId=nobody', 0],
    ] as const) {
      const res = await measured('GET', path, { auth: p.auth });
      expect(res.status, path).toBe(200);
      expect(res.body.totalCount, path).toBe(n);
      // Authentication, the page, its owners and the count: a few rows, not the platform's 21 customers.
      expect(res.cost.rowsRead, path).toBeLessThanOrEqual(14);
    }
  });

  it('service-wide lists: platforms and UMA providers (all and allow-listed), through an upsert', async () => {
    const p = await newPlatform();
    const platforms = (await total('/operator/platforms?limit=1', OPERATOR))!;
    await newPlatform();
    expect(await total('/operator/platforms?limit=1', OPERATOR)).toBe(platforms + 1);

    const all = (await total('/uma-providers?limit=1', p.auth))!;
    const allowed = (await total('/uma-providers?limit=1&hasBlockedProviders=false', p.auth))!;
    const domain = `totals-${crypto.randomUUID()}.example`;
    const provider = { name: 'Totals Pay', domain, supportedRegions: ['AQ'], supportedCurrencies: ['USD'], allowListStatus: true };
    const load = (allowListStatus: boolean) =>
      api('POST', '/operator/uma-providers', { auth: OPERATOR, body: { providers: [{ ...provider, allowListStatus }] } });
    expect((await load(true)).body).toEqual({ created: 1, updated: 0 });
    expect(await total('/uma-providers?limit=1', p.auth)).toBe(all + 1);
    expect(await total('/uma-providers?limit=1&hasBlockedProviders=false', p.auth)).toBe(allowed + 1);
    // Loading it again replaces it (an upsert): counted once; blocked, it leaves the allow-listed count.
    expect((await load(false)).body).toEqual({ created: 0, updated: 1 });
    expect(await total('/uma-providers?limit=1', p.auth)).toBe(all + 1);
    expect(await total('/uma-providers?limit=1&hasBlockedProviders=false', p.auth)).toBe(allowed);
  });
});
