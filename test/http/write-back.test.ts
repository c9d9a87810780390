import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectError, failingFields } from '../support/api';
import { newAgent, type TestAgent } from '../support/agents';
import { businessBody, createCustomer, individualBody, personalInfo } from '../support/customers';
import { externalAccount } from '../support/payments';
import writeBacks from './reference-write-backs.json';

/**
 * Clients send back what they read: `config.update({ supportedCurrencies: (await config.retrieve()).supportedCurrencies })`.
 * Every field of a GET answer whose reference schema is also that field's schema in a request body
 * (`test/http/reference-write-backs.json`, extracted from the reference by `scripts/reference-operations.py`) is
 * read here and written back unchanged: the write succeeds, and a PATCH leaves the field as it was. The
 * reference's read-only fields inside it (a supported currency's `providerRequired…Fields`) are accepted and
 * ignored, and `/openapi.json` marks them `readOnly`.
 */

/** What the SDK (a Stainless client) adds to every request besides auth and the JSON content type. */
const SDK_HEADERS = {
  Accept: 'application/json',
  'User-Agent': 'service-sdk/JS 0.7.0',
  'X-Stainless-Retry-Count': '0',
  'X-Stainless-Lang': 'js',
};

interface World extends TestAgent {
  usd: string;
  bank: string;
  businessId: string;
  ownerId: string;
  quoteId: string;
  agentQuoteId: string;
}

const accountQuote = (usd: string, bank: string) => ({
  source: { sourceType: 'ACCOUNT', accountId: usd },
  destination: { destinationType: 'ACCOUNT', accountId: bank },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: 1_000,
});

async function world(): Promise<World> {
  const a = await newAgent();
  const usd = a.accounts.find((x) => x.type !== 'EMBEDDED_WALLET' && x.balance.currency.code === 'USD').id;
  const bank = await externalAccount(a.p, a.customerId, 'USD', '789');
  const business = await createCustomer(a.p, businessBody());
  const owner = await api('POST', '/beneficial-owners', {
    auth: a.p.auth,
    body: { customerId: business.id, roles: ['UBO'], ownershipPercentage: 30, personalInfo: personalInfo() },
  });
  expect(owner.status, JSON.stringify(owner.body)).toBe(201);
  const quote = await api('POST', '/quotes', { auth: a.p.auth, body: accountQuote(usd, bank) });
  expect(quote.status, JSON.stringify(quote.body)).toBe(201);
  const agentQuote = await api('POST', '/agents/me/quotes', { auth: a.bearer, body: accountQuote(usd, bank) });
  expect(agentQuote.status, JSON.stringify(agentQuote.body)).toBe(201);
  return { ...a, usd, bank, businessId: business.id, ownerId: owner.body.id, quoteId: quote.body.id, agentQuoteId: agentQuote.body.id };
}

/** Where each GET of the list reads, and with which credentials. */
const READS: Record<string, (w: World) => { path: string; auth: string }> = {
  'GET /config': (w) => ({ path: '/config', auth: w.p.auth }),
  'GET /customers/{customerId}': (w) => ({ path: `/customers/${w.customerId}`, auth: w.p.auth }),
  'GET /beneficial-owners/{beneficialOwnerId}': (w) => ({ path: `/beneficial-owners/${w.ownerId}`, auth: w.p.auth }),
  'GET /quotes/{quoteId}': (w) => ({ path: `/quotes/${w.quoteId}`, auth: w.p.auth }),
  'GET /agents/me/quotes/{quoteId}': (w) => ({ path: `/agents/me/quotes/${w.agentQuoteId}`, auth: w.bearer }),
  'GET /agents/me': (w) => ({ path: '/agents/me', auth: w.bearer }),
  'GET /agents/{agentId}': (w) => ({ path: `/agents/${w.agentId}`, auth: w.p.auth }),
};

/** Each write of the list, with `field` set to what was read (and whatever else the write needs). */
const WRITES: Record<string, (w: World, field: string, value: unknown) => { method: string; path: string; auth: string; body: object }> = {
  'PATCH /config': (w, field, value) => ({ method: 'PATCH', path: '/config', auth: w.p.auth, body: { [field]: value } }),
  'POST /customers': (w, field, value) => ({
    method: 'POST',
    path: '/customers',
    auth: w.p.auth,
    body: individualBody({ [field]: value }),
  }),
  'PATCH /customers/{customerId}': (w, field, value) => ({
    method: 'PATCH',
    path: `/customers/${w.customerId}`,
    auth: w.p.auth,
    body: { customerType: 'INDIVIDUAL', [field]: value },
  }),
  'POST /beneficial-owners': (w, field, value) => ({
    method: 'POST',
    path: '/beneficial-owners',
    auth: w.p.auth,
    body: { customerId: w.businessId, roles: ['UBO'], ownershipPercentage: 10, [field]: value },
  }),
  'POST /quotes': (w, field, value) => ({
    method: 'POST',
    path: '/quotes',
    auth: w.p.auth,
    body: { ...accountQuote(w.usd, w.bank), [field]: value },
  }),
  'POST /agents/me/quotes': (w, field, value) => ({
    method: 'POST',
    path: '/agents/me/quotes',
    auth: w.bearer,
    body: { ...accountQuote(w.usd, w.bank), [field]: value },
  }),
  'POST /agents': (w, field, value) => ({
    method: 'POST',
    path: '/agents',
    auth: w.p.auth,
    body: { name: 'Copy', customerId: w.customerId, [field]: value },
  }),
};

describe('a field read from a GET is accepted back in the request the reference shares its schema with', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  it('knows how to read and write every write-back of the reference', () => {
    expect(writeBacks.length).toBeGreaterThanOrEqual(10);
    expect(writeBacks.filter((b) => !READS[b.read] || !WRITES[b.write]).map((b) => `${b.read} -> ${b.write}`)).toEqual([]);
  });

  for (const b of writeBacks) {
    it(`${b.read} -> ${b.write}: ${b.field} sent back unchanged`, async () => {
      const read = READS[b.read]!(w);
      const before = await api('GET', read.path, { auth: read.auth });
      expect(before.status, JSON.stringify(before.body)).toBe(200);
      const value = before.body[b.field];
      expect(value, `${b.read} answers ${b.field}`).toBeDefined();
      const write = WRITES[b.write]!(w, b.field, value);
      const res = await api(write.method, write.path, { auth: write.auth, body: write.body });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      if (write.method === 'PATCH') {
        const after = await api('GET', read.path, { auth: read.auth });
        expect(after.body[b.field]).toEqual(value);
      }
    });
  }
});

describe('read-only fields in request bodies', () => {
  it("passes the official SDK's read-then-update unchanged: config.update({ supportedCurrencies: (await config.retrieve()).supportedCurrencies })", async () => {
    const a = await newAgent();
    const read = await api('GET', '/config', { auth: a.p.auth, headers: SDK_HEADERS });
    expect(read.status).toBe(200);
    // The SDK's request as it sends it: PATCH, JSON, its own headers.
    const res = await api('PATCH', '/config', {
      auth: a.p.auth,
      headers: SDK_HEADERS,
      body: { supportedCurrencies: read.body.supportedCurrencies },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect({ ...res.body, updatedAt: read.body.updatedAt }).toEqual(read.body);
  });

  it('ignores the values sent in a supported currency’s provider-required fields, but checks their type', async () => {
    const a = await newAgent();
    const config = (await api('GET', '/config', { auth: a.p.auth })).body;
    const usd = config.supportedCurrencies.find((c: { currencyCode: string }) => c.currencyCode === 'USD');
    expect(usd.providerRequiredCustomerFields).toBeDefined();
    // Sent with values of their own: still read-only, so the service's stay.
    const sent = {
      ...usd,
      maxAmount: usd.maxAmount - 1,
      providerRequiredCustomerFields: [],
      providerRequiredCounterpartyCustomerFields: [],
    };
    const res = await api('PATCH', '/config', { auth: a.p.auth, body: { supportedCurrencies: [sent] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.supportedCurrencies).toEqual([
      { ...usd, maxAmount: usd.maxAmount - 1, providerRequiredCustomerFields: usd.providerRequiredCustomerFields },
    ]);
    // Read-only is not anything goes: the field still has its type.
    const wrong = await api('PATCH', '/config', {
      auth: a.p.auth,
      body: { supportedCurrencies: [{ ...usd, providerRequiredCustomerFields: ['NOT_A_FIELD'] }] },
    });
    expectError(wrong, 400, 'INVALID_INPUT');
    expect(failingFields(wrong)).toEqual(['supportedCurrencies.0.providerRequiredCustomerFields.0']);
  });

  it('takes back the whole GET /config answer: read-only and operator-set fields as they are, a change of an operator-set one refused', async () => {
    const a = await newAgent();
    const config = (await api('GET', '/config', { auth: a.p.auth })).body;
    const res = await api('PATCH', '/config', { auth: a.p.auth, body: config });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect({ ...res.body, updatedAt: config.updatedAt }).toEqual(config);
    const regulated = await api('PATCH', '/config', { auth: a.p.auth, body: { ...config, isRegulatedFinancialInstitution: true } });
    expectError(regulated, 400, 'INVALID_INPUT');
    expect(failingFields(regulated)).toEqual(['isRegulatedFinancialInstitution']);
    expect((await api('GET', '/config', { auth: a.p.auth })).body.isRegulatedFinancialInstitution).toBe(false);
  });

  it('marks them readOnly in /openapi.json, with the other request fields left as they were', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const update = doc.paths['/config'].patch.requestBody.content['application/json'].schema;
    const body = update.$ref ? doc.components.schemas[update.$ref.split('/').pop()] : update;
    const currency = body.properties.supportedCurrencies.items;
    const item = currency.$ref ? doc.components.schemas[currency.$ref.split('/').pop()] : currency;
    for (const name of ['providerRequiredCustomerFields', 'providerRequiredCounterpartyCustomerFields']) {
      expect(item.properties[name].readOnly, name).toBe(true);
    }
    expect(item.properties.minAmount.readOnly).toBeUndefined();
    for (const name of ['id', 'createdAt', 'updatedAt', 'webhookPublicKey']) expect(body.properties[name].readOnly, name).toBe(true);
    expect(body.properties.umaDomain.readOnly).toBeUndefined();
    expect(item.additionalProperties).toBe(false);
  });
});
