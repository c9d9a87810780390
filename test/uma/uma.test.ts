import { describe, expect, it } from 'vitest';
import { api, expectError, failingFields, newPlatform, OPERATOR, tokenWith } from '../support/api';
import { walk } from '../support/customers';

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('GET /uma-providers', () => {
  it('serves the seeded sandbox directory: at least 60 providers, desc by name by default, 20 per page', async () => {
    const p = await newPlatform();
    const res = await api('GET', '/uma-providers', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'hasMore', 'nextCursor', 'totalCount']);
    expect(res.body.totalCount).toBeGreaterThanOrEqual(60);
    expect(res.body.data).toHaveLength(20);
    expect(res.body.hasMore).toBe(true);
    const names = res.body.data.map((x: any) => x.name);
    expect(names).toEqual([...names].sort(byName).reverse());
    const provider = res.body.data.find((x: any) => x.domain === 'zephyr.example');
    expect(provider).toEqual({
      name: 'Zephyr Finance',
      supportedRegions: ['GB', 'FR', 'IT', 'ES', 'DE'],
      domain: 'zephyr.example',
      logoUrl: 'https://zephyr.example/logo.png',
      supportedCurrencies: [
        { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2 },
        { code: 'GBP', name: 'Pound Sterling', symbol: '£', decimals: 2 },
        { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
        { code: 'USDC', name: 'USD Coin', symbol: 'USDC', decimals: 6 },
      ],
      lei: expect.stringMatching(/^[A-Z0-9]{18}[0-9]{2}$/),
      allowListStatus: true,
    });
  });

  it('walks every provider exactly once in either order, nextCursor absent on the last page', async () => {
    const p = await newPlatform();
    const total = (await api('GET', '/uma-providers?limit=1', { auth: p.auth })).body.totalCount;
    const asc = await walk('/uma-providers?sortOrder=asc&limit=7', p.auth);
    expect(asc).toHaveLength(total);
    expect(asc.map((x) => x.name)).toEqual(asc.map((x) => x.name).sort(byName));
    expect(new Set(asc.map((x) => x.domain)).size).toBe(total);
    const desc = await walk('/uma-providers?limit=100', p.auth);
    expect(desc.map((x) => x.domain)).toEqual(asc.map((x) => x.domain).reverse());
    const first = (await api('GET', '/uma-providers?sortOrder=asc&limit=25', { auth: p.auth })).body;
    const middle = (await api('GET', `/uma-providers?sortOrder=asc&limit=25&cursor=${first.nextCursor}`, { auth: p.auth })).body;
    expect(middle.data.map((x: any) => x.domain)).toEqual(asc.slice(25, 50).map((x) => x.domain));
    expect(middle).toMatchObject({ hasMore: true, totalCount: total });
  });

  it('filters by country, currency and allow-list, totalCount counting all matches', async () => {
    const p = await newPlatform();
    const all = await walk('/uma-providers?limit=100', p.auth);
    const q = async (query: string) => (await api('GET', `/uma-providers?${query}&limit=100`, { auth: p.auth })).body;
    const mx = await q('countryCode=MX');
    expect(mx.data.map((x: any) => x.domain).sort()).toEqual(
      all
        .filter((x) => x.supportedRegions.includes('MX'))
        .map((x) => x.domain)
        .sort(),
    );
    expect(mx.totalCount).toBe(mx.data.length);
    expect(mx.data.length).toBeGreaterThanOrEqual(3);
    const usdc = await q('currencyCode=USD');
    expect(usdc.totalCount).toBe(all.filter((x) => x.supportedCurrencies.some((c: any) => c.code === 'USD')).length);
    const allowed = await q('hasBlockedProviders=false');
    const blocked = all.filter((x) => !x.allowListStatus);
    expect(blocked.length).toBeGreaterThan(0);
    expect(allowed.totalCount).toBe(all.length - blocked.length);
    expect(allowed.data.every((x: any) => x.allowListStatus)).toBe(true);
    expect((await q('hasBlockedProviders=true')).totalCount).toBe(all.length);
    const both = await q('countryCode=US&currencyCode=USD&hasBlockedProviders=false');
    expect(both.totalCount).toBe(
      all.filter((x) => x.allowListStatus && x.supportedRegions.includes('US') && x.supportedCurrencies.some((c: any) => c.code === 'USD'))
        .length,
    );
    const small = (await api('GET', '/uma-providers?countryCode=US&limit=2', { auth: p.auth })).body;
    expect(small.data).toHaveLength(2);
    expect(small.totalCount).toBe((await q('countryCode=US')).totalCount);
    expect(await q('countryCode=AQ')).toEqual({ data: [], hasMore: false, totalCount: 0 });
  });

  it('answers 400 for bad query values', async () => {
    const p = await newPlatform();
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['sortOrder=up', 'sortOrder'],
      ['sortOrder=ASC', 'sortOrder'],
      ['hasBlockedProviders=yes', 'hasBlockedProviders'],
      ['hasBlockedProviders=1', 'hasBlockedProviders'],
      ['countryCode=USA', 'countryCode'],
      ['countryCode=us', 'countryCode'],
      ['currencyCode=US', 'currencyCode'],
      ['currencyCode=usd', 'currencyCode'],
      ['cursor=not-a-cursor', 'cursor'],
    ]) {
      const res = await api('GET', `/uma-providers?${query}`, { auth: p.auth });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), query).toEqual([field]);
    }
    // A cursor of an id-ordered list is not a cursor of this name-ordered one.
    const customersCursor = btoa(JSON.stringify({ id: 'x' })).replace(/=+$/, '');
    expectError(await api('GET', `/uma-providers?cursor=${customersCursor}`, { auth: p.auth }), 400);
  });

  it('needs VIEW and credentials; every platform sees the same directory, in either home', async () => {
    const p = await newPlatform();
    expectError(await api('GET', '/uma-providers'), 401);
    expectError(await api('GET', '/uma-providers', { auth: await tokenWith(p, ['MANAGE']) }), 403);
    const mine = (await api('GET', '/uma-providers?limit=5', { auth: await tokenWith(p, ['VIEW']) })).body;
    expect(mine.data).toHaveLength(5);
    for (const home of ['DB', 'DB_2']) {
      const theirs = (await api('GET', '/uma-providers?limit=5', { auth: (await newPlatform({ home })).auth })).body;
      expect(theirs, home).toEqual(mine);
    }
  });
});

describe('POST /operator/uma-providers', () => {
  it('adds providers and replaces those with the same domain, for the platforms of every home', async () => {
    const p = await newPlatform();
    const far = await newPlatform({ home: 'DB_2' });
    const domain = `op-${Date.now()}.example`;
    const provider = {
      name: 'Operator Pay',
      domain,
      logoUrl: `https://${domain}/logo.png`,
      supportedRegions: ['AQ'],
      supportedCurrencies: ['USD', { code: 'NZD', name: 'New Zealand Dollar', symbol: 'NZ$', decimals: 2 }],
      lei: '5493001KJTIIGC8Y1R12',
    };
    const res = await api('POST', '/operator/uma-providers', { auth: OPERATOR, body: { providers: [provider] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ created: 1, updated: 0 });
    const listed = (await api('GET', '/uma-providers?countryCode=AQ', { auth: p.auth })).body;
    expect((await api('GET', '/uma-providers?countryCode=AQ', { auth: far.auth })).body).toEqual(listed);
    expect(listed).toEqual({
      data: [
        {
          name: 'Operator Pay',
          supportedRegions: ['AQ'],
          domain,
          logoUrl: provider.logoUrl,
          supportedCurrencies: [
            { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
            { code: 'NZD', name: 'New Zealand Dollar', symbol: 'NZ$', decimals: 2 },
          ],
          lei: provider.lei,
          allowListStatus: true,
        },
      ],
      hasMore: false,
      totalCount: 1,
    });
    const again = await api('POST', '/operator/uma-providers', {
      auth: OPERATOR,
      body: { providers: [{ ...provider, name: 'Operator Pay Renamed', allowListStatus: false }] },
    });
    expect(again.body).toEqual({ created: 0, updated: 1 });
    for (const q of [p, far]) {
      const after = (await api('GET', '/uma-providers?countryCode=AQ', { auth: q.auth })).body.data;
      expect(after).toHaveLength(1);
      expect(after[0]).toMatchObject({ name: 'Operator Pay Renamed', allowListStatus: false });
      expect((await api('GET', '/uma-providers?countryCode=AQ&hasBlockedProviders=false', { auth: q.auth })).body.totalCount).toBe(0);
    }
  });

  it("loads the same providers in every home: a page's cursor from one home reads the next page in another", async () => {
    const p = await newPlatform();
    const far = await newPlatform({ home: 'DB_2' });
    // Three providers of one name, so their order (and the cursor) is decided by their ids.
    const stem = `same-${crypto.randomUUID().slice(0, 8)}`;
    const providers = [1, 2, 3].map((n) => ({
      name: 'Twin Pay',
      domain: `${stem}-${n}.example`,
      supportedRegions: ['AQ'],
      supportedCurrencies: ['USD'],
    }));
    expect((await api('POST', '/operator/uma-providers', { auth: OPERATOR, body: { providers } })).status).toBe(200);
    const first = await api('GET', '/uma-providers?countryCode=AQ&limit=2&sortOrder=desc', { auth: p.auth });
    expect(first.status).toBe(200);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const page = (q: { auth: string }) =>
      api('GET', `/uma-providers?countryCode=AQ&limit=2&sortOrder=desc&cursor=${encodeURIComponent(first.body.nextCursor)}`, {
        auth: q.auth,
      });
    const here = await page(p);
    const there = await page(far);
    expect(there.status).toBe(200);
    expect(there.body).toEqual(here.body);
    const seen = [...first.body.data, ...here.body.data].map((x: { domain: string }) => x.domain);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('validates, and needs the operator token', async () => {
    const good = { name: 'X', domain: 'x.example', supportedRegions: ['US'], supportedCurrencies: ['USD'] };
    for (const [body, field] of [
      [{ providers: [] }, 'providers'],
      [{ providers: [{ ...good, domain: 'not a domain' }] }, 'providers.0.domain'],
      [{ providers: [{ ...good, supportedRegions: ['usa'] }] }, 'providers.0.supportedRegions.0'],
      [{ providers: [{ ...good, supportedCurrencies: ['XYZ'] }] }, 'providers.0.supportedCurrencies.0'],
      [{ providers: [{ ...good, lei: 'short' }] }, 'providers.0.lei'],
      [{ providers: [good, good] }, 'providers'],
    ] as const) {
      const res = await api('POST', '/operator/uma-providers', { auth: OPERATOR, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(body)).toContain(field);
    }
    expectError(await api('POST', '/operator/uma-providers', { body: { providers: [good] } }), 401);
    expectError(await api('POST', '/operator/uma-providers', { auth: 'Bearer wrong', body: { providers: [good] } }), 401);
    const p = await newPlatform();
    expectError(await api('POST', '/operator/uma-providers', { auth: p.auth, body: { providers: [good] } }), 401);
  });
});
