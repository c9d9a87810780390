import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, failingFields, newPlatform, productionApi, type TestPlatform } from '../support/api';
import { businessBody, individualBody } from '../support/customers';
import { bankInfo, balanceOf } from '../support/payments';
import { policy } from '../support/agents';

const T0 = Date.parse('2032-08-01T09:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const load = (p: TestPlatform, doc: unknown) => api('POST', '/sandbox/fixtures', { auth: p.auth, body: doc });

/** Every section and every $ref form: a customer, its accounts by currency and its wallet, an external account, an agent, a payment. */
function fullDocument() {
  return {
    customers: [
      {
        ref: 'alice',
        ...individualBody({ email: 'alice@example.com' }),
        kycStatus: 'APPROVED',
        balances: { USD: 100_000, EUR: 5_000 },
        externalAccounts: [
          { ref: 'alice-bank', currency: 'USD', accountInfo: bankInfo('USD', '000') },
          { ref: 'alice-iban', currency: 'EUR', accountInfo: bankInfo('EUR', '000') },
        ],
        wallet: { type: 'EMAIL_OTP' },
      },
      { ref: 'acme', ...businessBody({}, { registrationNumber: '5523001' }), kycStatus: 'PENDING', currencies: ['USD', 'MXN'] },
      { ...individualBody() },
    ],
    agents: [
      { ref: 'bot', name: 'Payroll bot', customerId: { $ref: 'alice' }, policy: policy(), redeem: true },
      { name: 'Waiting bot', customerId: { $ref: 'acme' }, policy: policy() },
    ],
    payments: [
      {
        ref: 'payout',
        transferOut: {
          source: { accountId: { $ref: 'alice.accounts.USD' } },
          destination: { accountId: { $ref: 'alice-bank' } },
          amount: 10_000,
        },
        settle: true,
      },
      {
        ref: 'pull',
        transferIn: {
          source: { accountId: { $ref: 'alice-bank' } },
          destination: { accountId: { $ref: 'alice.accounts.USD' } },
          amount: 2_000,
        },
      },
      {
        ref: 'fx',
        quote: {
          source: { sourceType: 'ACCOUNT', accountId: { $ref: 'alice.accounts.USD' } },
          destination: { destinationType: 'ACCOUNT', accountId: { $ref: 'alice-iban' } },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 1_000,
        },
        execute: true,
        settle: true,
      },
    ],
  };
}

describe('POST /sandbox/fixtures', () => {
  it('creates every section, resolves every $ref form, and the API reads it all back', async () => {
    const p = await newPlatform();
    const res = await load(p, fullDocument());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { refs, counts, agents } = res.body;
    expect(counts).toEqual({
      customers: 3,
      verifications: 2,
      fundings: 2,
      externalAccounts: 2,
      walletCredentials: 1,
      agents: 2,
      payments: 3,
      settled: 2,
    });
    expect(refs).toMatchObject({
      alice: expect.stringMatching(/^Customer:/),
      'alice.accounts.USD': expect.stringMatching(/^InternalAccount:/),
      'alice.accounts.EUR': expect.stringMatching(/^InternalAccount:/),
      'alice.accounts.wallet': expect.stringMatching(/^InternalAccount:/),
      'alice-bank': expect.stringMatching(/^ExternalAccount:/),
      acme: expect.stringMatching(/^Customer:/),
      'acme.accounts.MXN': expect.stringMatching(/^InternalAccount:/),
      bot: expect.stringMatching(/^Agent:/),
      payout: expect.stringMatching(/^Transaction:/),
      pull: expect.stringMatching(/^Transaction:/),
      fx: expect.stringMatching(/^Transaction:/),
      'fx.quote': expect.stringMatching(/^Quote:/),
    });

    // Customers with the KYC status asked for.
    const alice = await api('GET', `/customers/${refs.alice}`, { auth: p.auth });
    expect(alice.body).toMatchObject({ kycStatus: 'APPROVED', email: 'alice@example.com' });
    expect((await api('GET', `/customers/${refs.acme}`, { auth: p.auth })).body).toMatchObject({ kybStatus: 'PENDING' });
    expect((await api('GET', '/customers', { auth: p.auth })).body.totalCount).toBe(3);

    // Balances: funded, less the payout and the quote, plus the pull (settled too: the quote's settling moved the clock past it).
    expect(await balanceOf(p, refs['alice.accounts.EUR'])).toBe(5_000);
    expect(await balanceOf(p, refs['alice.accounts.USD'])).toBe(100_000 - 10_000 + 2_000 - 1_000);

    // The external account belongs to alice; the wallet has its credential.
    const bank = await api('GET', `/customers/external-accounts/${refs['alice-bank']}`, { auth: p.auth });
    expect(bank.body).toMatchObject({ customerId: refs.alice, currency: 'USD' });
    const creds = await api('GET', `/auth/credentials?accountId=${encodeURIComponent(refs['alice.accounts.wallet'])}`, { auth: p.auth });
    expect(creds.body.data).toEqual([expect.objectContaining({ type: 'EMAIL_OTP', nickname: 'alice@example.com' })]);

    // The redeemed agent's token works; the other agent has its device code.
    expect(agents.bot).toMatchObject({ agentId: refs.bot, accessToken: expect.any(String) });
    const me = await api('GET', '/agents/me', { auth: `Bearer ${agents.bot.accessToken}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: refs.bot, customerId: refs.alice });
    const waiting = Object.entries(agents).find(([k]) => k !== 'bot')!;
    expect(waiting[1]).toMatchObject({ deviceCode: { code: expect.any(String), agentId: waiting[0], redeemed: false } });

    // Settled payments are final.
    expect((await api('GET', `/transactions/${refs.payout}`, { auth: p.auth })).body.status).toBe('COMPLETED');
    expect((await api('GET', `/transactions/${refs.fx}`, { auth: p.auth })).body.status).toBe('COMPLETED');
    expect((await api('GET', `/quotes/${refs['fx.quote']}`, { auth: p.auth })).body.status).toBe('COMPLETED');
    expect((await api('GET', `/transactions/${refs.pull}`, { auth: p.auth })).body.status).toBe('COMPLETED');
  });

  it('is 404 in production', async () => {
    const p = await newPlatform();
    expectError(await productionApi('POST', '/sandbox/fixtures', { auth: p.auth, body: {} }), 404, 'NOT_FOUND');
  });
});

export { failingFields };
