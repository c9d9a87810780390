import { env } from 'cloudflare:test';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { database } from '../../src/db/client';
import { ledgerMovements } from '../../src/db/schema';
import { api, expectError, failingFields, newPlatform, tokenWith } from '../support/api';
import { accountsOf, businessBody, createCustomer, productionApi, walk } from '../support/customers';

const USD = { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 };

describe('GET /customers/internal-accounts', () => {
  it('renders the reference InternalAccount with sandbox funding instructions per currency', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const accounts = await accountsOf(p, c.id);
    const usd = accounts[0];
    expect(usd).toEqual({
      id: expect.stringMatching(/^InternalAccount:[0-9a-f-]{36}$/),
      customerId: c.id,
      type: 'INTERNAL_FIAT',
      status: 'ACTIVE',
      balance: { amount: 0, currency: USD },
      fundingPaymentInstructions: [
        {
          instructionsNotes: expect.stringContaining('Sandbox'),
          isPlatformAccount: false,
          accountOrWalletInfo: {
            accountType: 'USD_ACCOUNT',
            accountNumber: expect.stringMatching(/^\d{12}$/),
            routingNumber: expect.stringMatching(/^\d{9}$/),
            paymentRails: ['ACH', 'WIRE', 'RTP'],
            reference: expect.stringMatching(/^FUND-[0-9A-F]{8}$/),
          },
        },
      ],
      createdAt: c.createdAt,
      updatedAt: c.createdAt,
    });
    const byType = Object.fromEntries(accounts.map((a) => [`${a.type}:${a.balance.currency.code}`, a]));
    expect(byType['INTERNAL_FIAT:EUR'].fundingPaymentInstructions[0].accountOrWalletInfo).toMatchObject({
      accountType: 'EUR_ACCOUNT',
      iban: expect.stringMatching(/^DE\d{20}$/),
      paymentRails: ['SEPA', 'SEPA_INSTANT'],
    });
    expect(byType['INTERNAL_FIAT:MXN'].fundingPaymentInstructions[0].accountOrWalletInfo).toMatchObject({
      accountType: 'MXN_ACCOUNT',
      clabeNumber: expect.stringMatching(/^\d{18}$/),
      paymentRails: ['SPEI'],
    });
    expect(byType['INTERNAL_FIAT:BRL'].fundingPaymentInstructions[0].accountOrWalletInfo.accountType).toBe('BRL_ACCOUNT');
    expect(byType['INTERNAL_FIAT:INR'].fundingPaymentInstructions[0].accountOrWalletInfo).toMatchObject({
      accountType: 'INR_ACCOUNT',
      paymentRails: ['UPI'],
    });
    const wallet = byType['EMBEDDED_WALLET:USD'];
    expect(wallet.privateEnabled).toBe(false);
    expect(usd).not.toHaveProperty('privateEnabled');
    // Stable: the same account renders the same details every time.
    expect((await accountsOf(p, c.id))[0]).toEqual(usd);
  });

  it('renders wallet addresses for crypto accounts', async () => {
    const currencies = ['BTC', 'USDC'].map((currencyCode) => ({
      currencyCode,
      minAmount: 1,
      maxAmount: 10,
      enabledTransactionTypes: [],
      requiredCounterpartyFields: [],
    }));
    const p = await newPlatform({ supportedCurrencies: currencies, embeddedWalletConfig: undefined });
    const c = await createCustomer(p);
    const [btc, usdc] = await accountsOf(p, c.id);
    expect(btc.type).toBe('INTERNAL_CRYPTO');
    expect(btc.fundingPaymentInstructions[0].accountOrWalletInfo).toEqual({
      accountType: 'SPARK_WALLET',
      address: expect.stringMatching(/^spark1[a-z0-9]+$/),
      assetType: 'BTC',
    });
    expect(usdc.fundingPaymentInstructions[0].accountOrWalletInfo).toEqual({
      accountType: 'SOLANA_WALLET',
      address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{44}$/),
      assetType: 'USDC',
    });
  });

  it('filters by customerId, currency and type, pages with totalCount, and sees only its platform', async () => {
    const p = await newPlatform();
    const a = await createCustomer(p);
    const b = await createCustomer(p, businessBody());
    const q = async (query: string) => (await api('GET', `/customers/internal-accounts?${query}`, { auth: p.auth })).body;
    expect((await q('limit=100')).totalCount).toBe(12);
    expect((await q(`customerId=${b.id}&limit=100`)).data.every((x: any) => x.customerId === b.id)).toBe(true);
    expect((await q('currency=EUR')).data.map((x: any) => x.customerId)).toEqual([a.id, b.id]);
    expect((await q('type=EMBEDDED_WALLET')).data.map((x: any) => [x.customerId, x.balance.currency.code])).toEqual([
      [a.id, 'USD'],
      [b.id, 'USD'],
    ]);
    const first = await q('limit=5');
    expect(first).toMatchObject({ hasMore: true, totalCount: 12 });
    expect(first.data).toHaveLength(5);
    const all = await walk('/customers/internal-accounts?limit=5', p.auth);
    expect(all).toHaveLength(12);
    for (const bad of ['type=SAVINGS', 'limit=0', 'limit=101', 'cursor=x']) {
      expectError(await api('GET', `/customers/internal-accounts?${bad}`, { auth: p.auth }), 400, 'INVALID_INPUT');
    }
    const other = await newPlatform();
    expect((await api('GET', `/customers/internal-accounts?customerId=${a.id}`, { auth: other.auth })).body).toEqual({
      data: [],
      hasMore: false,
      totalCount: 0,
    });
    expectError(await api('GET', '/customers/internal-accounts', { auth: await tokenWith(p, ['MANAGE']) }), 403);
  });
});

describe('GET /platform/internal-accounts', () => {
  it("lists the platform's own accounts, one per supported currency, provisioned once", async () => {
    const p = await newPlatform();
    const res = await api('GET', '/platform/internal-accounts', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data.map((a: any) => [a.type, a.balance.currency.code])).toEqual([
      ['INTERNAL_FIAT', 'USD'],
      ['INTERNAL_FIAT', 'EUR'],
      ['INTERNAL_FIAT', 'MXN'],
      ['INTERNAL_FIAT', 'BRL'],
      ['INTERNAL_FIAT', 'INR'],
    ]);
    expect(res.body.data[0]).not.toHaveProperty('customerId');
    expect(res.body.data[0].fundingPaymentInstructions[0].isPlatformAccount).toBe(true);
    const [again, concurrent] = await Promise.all([
      api('GET', '/platform/internal-accounts', { auth: p.auth }),
      api('GET', '/platform/internal-accounts?currency=EUR', { auth: p.auth }),
    ]);
    expect(again.body.data.map((a: any) => a.id)).toEqual(res.body.data.map((a: any) => a.id));
    expect(concurrent.body.data.map((a: any) => a.id)).toEqual([res.body.data[1].id]);
    expect((await api('GET', '/platform/internal-accounts?type=EMBEDDED_WALLET', { auth: p.auth })).body.data).toEqual([]);
    expectError(await api('GET', '/platform/internal-accounts?type=NOPE', { auth: p.auth }), 400);
    expectError(await api('GET', '/platform/internal-accounts', { auth: await tokenWith(p, ['TRANSACT']) }), 403);
    // Another platform lists only its own accounts.
    const theirs = (await api('GET', '/platform/internal-accounts', { auth: (await newPlatform()).auth })).body.data.map((a: any) => a.id);
    expect(theirs).toHaveLength(5);
    expect(theirs.filter((id: string) => res.body.data.some((a: any) => a.id === id))).toEqual([]);
    // Platform accounts do not appear among customer accounts.
    expect((await api('GET', '/customers/internal-accounts', { auth: p.auth })).body.totalCount).toBe(0);
  });
});

describe('POST /sandbox/internal-accounts/{accountId}/fund', () => {
  it('credits the account through the ledger and returns it', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const [usd] = await accountsOf(p, c.id);
    const res = await api('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: p.auth, body: { amount: 100000 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...usd, balance: { amount: 100000, currency: USD }, updatedAt: expect.any(String) });
    const movements = await database(env.DB).select().from(ledgerMovements).where(eq(ledgerMovements.platformId, p.id));
    expect(movements).toEqual([
      {
        platformId: p.id,
        reference: expect.stringMatching(/^SandboxFunding:/),
        kind: 'SANDBOX_FUNDING',
        fromAccountId: 'Sandbox:funding',
        toAccountId: usd.id,
        amount: 100000,
        currency: 'USD',
        createdAt: expect.any(Number),
      },
    ]);
    // Platform accounts and embedded wallets can be funded too.
    const platformUsd = (await api('GET', '/platform/internal-accounts?currency=USD', { auth: p.auth })).body.data[0];
    expect(
      (await api('POST', `/sandbox/internal-accounts/${platformUsd.id}/fund`, { auth: p.auth, body: { amount: 7 } })).body.balance.amount,
    ).toBe(7);
  });

  it('leaves the exact total under concurrent funding', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const [usd] = await accountsOf(p, c.id);
    const amounts = Array.from({ length: 25 }, (_, i) => i + 1);
    const results = await Promise.all(
      amounts.map((amount) => api('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: p.auth, body: { amount } })),
    );
    expect(results.map((r) => r.status)).toEqual(amounts.map(() => 200));
    const total = amounts.reduce((a, b) => a + b, 0);
    expect((await accountsOf(p, c.id))[0].balance.amount).toBe(total);
    const movements = await database(env.DB).select().from(ledgerMovements).where(eq(ledgerMovements.platformId, p.id));
    expect(movements.filter((m) => m.toAccountId === usd.id)).toHaveLength(25);
    expect(movements.reduce((s, m) => s + m.amount, 0)).toBe(total);
  });

  it('validates the amount', async () => {
    const p = await newPlatform();
    const [usd] = await accountsOf(p, (await createCustomer(p)).id);
    for (const body of [
      {},
      { amount: 0 },
      { amount: -5 },
      { amount: 1.5 },
      { amount: '100' },
      { amount: 100_000_000_001 },
      { amount: 1, extra: true },
    ]) {
      const res = await api('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res).length).toBeGreaterThan(0);
    }
    expect((await accountsOf(p, usd.customerId))[0].balance.amount).toBe(0);
  });

  it('404s unknown and other-platform accounts, 409s a closed one, needs TRANSACT', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const [usd] = await accountsOf(p, c.id);
    expectError(
      await api('POST', '/sandbox/internal-accounts/InternalAccount:00000000-0000-7000-8000-000000000000/fund', {
        auth: p.auth,
        body: { amount: 1 },
      }),
      404,
      'REFERENCE_NOT_FOUND',
      'INTERNAL_ACCOUNT_NOT_FOUND',
    );
    const q = await newPlatform();
    expectError(
      await api('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: q.auth, body: { amount: 1 } }),
      404,
      'REFERENCE_NOT_FOUND',
      'INTERNAL_ACCOUNT_NOT_FOUND',
    );
    for (const perms of [['VIEW'], ['MANAGE'], ['VIEW', 'MANAGE']]) {
      expectError(
        await api('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: await tokenWith(p, perms), body: { amount: 1 } }),
        403,
      );
    }
    expect(
      (await api('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: await tokenWith(p, ['TRANSACT']), body: { amount: 1 } }))
        .status,
    ).toBe(200);
    const d = await createCustomer(p);
    const [closed] = await accountsOf(p, d.id);
    expect((await api('DELETE', `/customers/${d.id}`, { auth: p.auth })).status).toBe(200);
    expectError(await api('POST', `/sandbox/internal-accounts/${closed.id}/fund`, { auth: p.auth, body: { amount: 1 } }), 409);
  });

  it('does not exist in production mode (404 before authentication), and production shows no invented bank details', async () => {
    const p = await newPlatform();
    const c = await createCustomer(p);
    const [usd] = await accountsOf(p, c.id);
    expectError(
      await productionApi('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { auth: p.auth, body: { amount: 1 } }),
      404,
      'REFERENCE_NOT_FOUND',
      'ROUTE_NOT_FOUND',
    );
    expectError(
      await productionApi('POST', `/sandbox/internal-accounts/${usd.id}/fund`, { body: { amount: 1 } }),
      404,
      'REFERENCE_NOT_FOUND',
      'ROUTE_NOT_FOUND',
    );
    const prod = await productionApi('GET', `/customers/internal-accounts?customerId=${c.id}`, { auth: p.auth });
    expect(prod.status).toBe(200);
    expect(prod.body.data.every((a: any) => a.fundingPaymentInstructions.length === 0)).toBe(true);
    expect((await accountsOf(p, c.id))[0].balance.amount).toBe(0);
  });
});
