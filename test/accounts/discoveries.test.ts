import { describe, expect, it } from 'vitest';
import { CORRIDORS } from '../../src/external-accounts/corridors/catalogue';
import { api, expectError, failingFields, newPlatform } from '../support/api';
import { ADDRESS, createCustomer } from '../support/customers';

/** An individual with every contact field a corridor may require. */
const person = {
  beneficiaryType: 'INDIVIDUAL',
  fullName: 'John Doe',
  address: ADDRESS,
  countryOfResidence: 'US',
  phoneNumber: '+14155550192',
};

interface Discovery {
  bankName: string;
  displayName: string;
  country: string;
  currency: string;
}

describe('GET /discoveries', () => {
  it("lists a country's institutions in the reference's shape (the reference's Philippine example among them)", async () => {
    const p = await newPlatform();
    const res = await api('GET', '/discoveries?country=PH&currency=PHP', { auth: p.auth });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toEqual(
      expect.arrayContaining([
        { bankName: 'BDO Unibank', displayName: 'BDO Unibank', country: 'PH', currency: 'PHP' },
        { bankName: 'BPI', displayName: 'Bank of the Philippine Islands', country: 'PH', currency: 'PHP' },
      ]),
    );
    expect(res.body.data.every((d: Discovery) => d.country === 'PH' && d.currency === 'PHP')).toBe(true);
  });

  it('filters by country, by currency, by both or neither (any case); a corridor without institutions lists none', async () => {
    const p = await newPlatform();
    const list = async (query: string) => {
      const res = await api('GET', `/discoveries${query}`, { auth: p.auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as Discovery[];
    };
    const all = await list('');
    expect(all.length).toBeGreaterThan(40);
    expect(new Set(all.map((d) => d.country)).size).toBeGreaterThan(10);
    // USD is held in the United States and in El Salvador.
    const usd = await list('?currency=usd');
    expect([...new Set(usd.map((d) => d.country))].sort()).toEqual(['SV', 'US']);
    expect(await list('?country=sv')).toEqual(usd.filter((d) => d.country === 'SV'));
    expect(await list('?country=SV&currency=USD')).toEqual(usd.filter((d) => d.country === 'SV'));
    expect(await list('?country=SV&currency=EUR')).toEqual([]);
    // Mexico is paid by CLABE over SPEI: its accounts name no bank.
    expect(await list('?country=MX')).toEqual([]);
  });

  it('refuses a malformed country or an unsupported currency, and any other parameter', async () => {
    const p = await newPlatform();
    for (const [query, field] of [
      ['?country=XX', 'country'],
      ['?country=PHL', 'country'],
      ['?currency=XYZ', 'currency'],
      ['?bank=BPI', 'bank'],
    ]) {
      const res = await api('GET', `/discoveries${query}`, { auth: p.auth });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), query).toEqual([field]);
    }
    expectError(await api('GET', '/discoveries'), 401, 'UNAUTHORIZED');
  });

  it(
    'every bankName it lists is accepted when creating an external account of its country and currency',
    { timeout: 120_000 },
    async () => {
      const p = await newPlatform();
      const customer = await createCustomer(p);
      const all = (await api('GET', '/discoveries', { auth: p.auth })).body.data as Discovery[];
      for (const d of all) {
        // The corridor of that country and currency whose accounts name their bank.
        const [corridor, ...others] = CORRIDORS.filter(
          (c) =>
            c.currency === d.currency && (c as { countries?: readonly string[] }).countries?.includes(d.country) && 'institutions' in c,
        );
        expect(others, `${d.country} ${d.currency}`).toEqual([]);
        const accountInfo = { ...corridor!.example, bankName: d.bankName, beneficiary: person };
        const created = await api('POST', '/customers/external-accounts', {
          auth: p.auth,
          body: { customerId: customer.id, currency: d.currency, accountInfo },
        });
        expect(created.status, `${d.bankName}: ${JSON.stringify(created.body)}`).toBe(201);
        expect(created.body.accountInfo).toMatchObject({ accountType: corridor!.accountType, bankName: d.bankName });
        // Deleted again, so the next bank of the corridor can reuse the example's identifier.
        expect((await api('DELETE', `/customers/external-accounts/${created.body.id}`, { auth: p.auth })).status).toBe(204);
      }
    },
  );
});
