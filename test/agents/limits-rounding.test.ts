import { describe, expect, it } from 'vitest';
import { api, expectError, newPlatform, SANDBOX_CURRENCIES } from '../support/api';
import { ADDRESS } from '../support/customers';
import { balanceOf, expectLedgerInvariant, fund } from '../support/payments';
import { newAgent, policy } from '../support/agents';

// Amounts in another currency count against the policy's limits converted at mid-market and rounded UP to the
// limit currency's smallest unit, and every action counts at least one unit: small amounts can never slip
// under a limit as zeros. (Sandbox: 1 VND is about USD 0.000038, so 131 VND is about 0.498 US cents.)

const VND = { ...SANDBOX_CURRENCIES[0]!, currencyCode: 'VND' };

/** An agent in USD limits whose customer has 100,000 VND and a Vietnamese bank account. */
async function vndAgent(spendingLimits: Record<string, unknown>) {
  const p = await newPlatform({ supportedCurrencies: [...SANDBOX_CURRENCIES, VND] });
  const a = await newAgent({
    p,
    policy: policy({ spendingLimits: { currency: 'USD', perTransactionLimit: 100_000, ...spendingLimits } }),
  });
  const vnd = a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'VND').id as string;
  await fund(p, vnd, 100_000);
  const bank = await api('POST', '/customers/external-accounts', {
    auth: p.auth,
    body: {
      customerId: a.customerId,
      currency: 'VND',
      accountInfo: {
        accountType: 'VND_ACCOUNT',
        bankName: 'Example Bank',
        accountNumber: '1234567789',
        swiftCode: 'BFTVVNVX',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'John Doe', birthDate: '1990-01-15', nationality: 'US', address: ADDRESS },
      },
    },
  });
  expect(bank.status, JSON.stringify(bank.body)).toBe(201);
  const out = (amount: number) =>
    api('POST', '/agents/me/transfer-out', {
      auth: a.bearer,
      body: { source: { accountId: vnd }, destination: { accountId: bank.body.id }, amount },
    });
  return { ...a, vnd, out };
}

describe('converted amounts count against limits rounded up, at least one unit', () => {
  it('a 5-cent daily limit: 131 VND transfers count 1 cent each, so five pass and the sixth is refused', async () => {
    const a = await vndAgent({ dailyLimit: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await a.out(131)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 403, 403, 403]);
    expectError(await a.out(131), 403, 'FORBIDDEN');
    const usage = (await api('GET', '/agents/me', { auth: a.bearer })).body.usage;
    expect(usage).toMatchObject({ dailySpend: 5, monthlySpend: 5, dailyTransactionCount: 5 });
    expect(await balanceOf(a.p, a.vnd)).toBe(100_000 - 5 * 131);
    await expectLedgerInvariant(a.p.id);
  });

  it('the per-transaction limit compares the amount rounded up: about 1.03 cents is above a 1-cent limit', async () => {
    const a = await vndAgent({ perTransactionLimit: 1 });
    // 260 VND is about 0.99 cents: 1 cent, at the limit.
    expect((await a.out(260)).status).toBe(201);
    // 270 VND is about 1.03 cents: 2 cents rounded up, above it (rounded to nearest it would have been 1).
    const refused = await a.out(270);
    expectError(refused, 403, 'FORBIDDEN');
    expect(refused.body.message).toContain('per-transaction limit');
  });

  it('parallel tiny transfers cannot together pass the limit either', async () => {
    const a = await vndAgent({ dailyLimit: 3 });
    const results = await Promise.all(Array.from({ length: 8 }, () => a.out(1)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 403, 'FORBIDDEN');
    expect((await api('GET', '/agents/me', { auth: a.bearer })).body.usage).toMatchObject({ dailySpend: 3, dailyTransactionCount: 3 });
  });
});
