import { expect } from 'vitest';
import { api, newPlatform, type TestPlatform } from './api';
import { accountsOf, createCustomer, individualBody } from './customers';

export const ALL_PERMISSIONS = ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'];

export const policy = (over: Record<string, unknown> = {}) => ({
  permissions: ALL_PERMISSIONS,
  defaultExecutionMode: 'AUTO',
  spendingLimits: {
    currency: 'USD',
    perTransactionLimit: 100_000,
    dailyLimit: 500_000,
    dailyTransactionLimit: 20,
    monthlyLimit: 2_000_000,
  },
  ...over,
});

export interface TestAgent {
  p: TestPlatform;
  customerId: string;
  agentId: string;
  bearer: string;
  accounts: any[];
}

/** The agent's customer's USD internal account. */
export const usdOf = (a: TestAgent) => a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'USD').id as string;

/** A platform, a customer and a connected agent (device code redeemed), ready to call /agents/me. */
export async function newAgent(opts: { p?: TestPlatform; policy?: Record<string, unknown> } = {}): Promise<TestAgent> {
  const p = opts.p ?? (await newPlatform());
  const customer = await createCustomer(p, individualBody());
  const created = await api('POST', '/agents', {
    auth: p.auth,
    body: { name: 'Payroll bot', customerId: customer.id, policy: opts.policy ?? policy() },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const redeemed = await api('POST', `/agents/device-codes/${created.body.deviceCode.code}/redeem`);
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
  return {
    p,
    customerId: customer.id,
    agentId: created.body.agent.id,
    bearer: `Bearer ${redeemed.body.accessToken}`,
    accounts: await accountsOf(p, customer.id),
  };
}

/** The agent's quote from its USD account to its external account, locked on the sending side. */
export const agentQuote = (a: { bearer: string; usd: string; bank: string }, amount: number) =>
  api('POST', '/agents/me/quotes', {
    auth: a.bearer,
    body: {
      source: { sourceType: 'ACCOUNT', accountId: a.usd },
      destination: { destinationType: 'ACCOUNT', accountId: a.bank },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: amount,
    },
  });
