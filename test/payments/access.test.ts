import { describe, expect, it } from 'vitest';
import { api, expectError, newPlatform, tokenWith } from '../support/api';
import { createQuote, customerWithAccounts, expectLedgerInvariant, externalAccount, fund, transfer } from '../support/payments';

/** Two platforms with a customer, a funded account, an external account, a quote and a transaction each. */
async function world() {
  const make = async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 10_000);
    const ext = await externalAccount(p, customer.id, 'USD', '321');
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    });
    const realtime = await createQuote(p, {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: accounts.EUR },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1_000,
    });
    const t = (await transfer(p, 'out', accounts.USD!, ext, 100)).body;
    return { p, customer, usd: accounts.USD!, ext, quote, realtime, tx: t };
  };
  return { a: await make(), b: await make() };
}

type W = Awaited<ReturnType<typeof world>>;
interface Endpoint {
  method: string;
  path: (w: W['a']) => string;
  body?: (w: W['a']) => unknown;
  key?: boolean;
  permission: 'VIEW' | 'TRANSACT' | 'MANAGE';
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: () => '/quotes',
    body: (w) => ({
      source: { sourceType: 'ACCOUNT', accountId: w.usd },
      destination: { destinationType: 'ACCOUNT', accountId: w.ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 500,
    }),
    permission: 'TRANSACT',
  },
  { method: 'GET', path: (w) => `/quotes/${w.quote.id}`, permission: 'VIEW' },
  { method: 'POST', path: (w) => `/quotes/${w.quote.id}/execute`, key: true, permission: 'TRANSACT' },
  {
    method: 'POST',
    path: () => '/transfer-in',
    body: (w) => ({ source: { accountId: w.ext }, destination: { accountId: w.usd }, amount: 100 }),
    key: true,
    permission: 'TRANSACT',
  },
  {
    method: 'POST',
    path: () => '/transfer-out',
    body: (w) => ({ source: { accountId: w.usd }, destination: { accountId: w.ext }, amount: 100 }),
    key: true,
    permission: 'TRANSACT',
  },
  { method: 'GET', path: () => '/transactions', permission: 'VIEW' },
  { method: 'GET', path: (w) => `/transactions/${w.tx.id}`, permission: 'VIEW' },
  { method: 'POST', path: (w) => `/transactions/${w.tx.id}/approve`, permission: 'TRANSACT' },
  { method: 'POST', path: (w) => `/transactions/${w.tx.id}/reject`, permission: 'TRANSACT' },
  { method: 'POST', path: () => '/sandbox/send', body: (w) => ({ quoteId: w.realtime.id, currencyCode: 'USD' }), permission: 'TRANSACT' },
  {
    method: 'POST',
    path: () => '/sandbox/uma/receive',
    body: (w) => ({
      senderUmaAddress: '$x@sender.test',
      receiverUmaAddress: w.customer.umaAddress,
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 100,
    }),
    permission: 'TRANSACT',
  },
  { method: 'POST', path: () => '/sandbox/reset', permission: 'MANAGE' },
];

const call = (e: Endpoint, w: W['a'], auth?: string) =>
  api(e.method, e.path(w), { auth, body: e.body?.(w), headers: e.key ? { 'Idempotency-Key': crypto.randomUUID() } : {} });

describe('permissions and tenancy of the payment endpoints', () => {
  it('401 without credentials; 403 for a token lacking the permission', async () => {
    const { a } = await world();
    const all = ['VIEW', 'TRANSACT', 'MANAGE'];
    const tokens = new Map<string, string>();
    for (const perm of all)
      tokens.set(
        perm,
        await tokenWith(
          a.p,
          all.filter((x) => x !== perm),
        ),
      );
    for (const e of ENDPOINTS) {
      expectError(await call(e, a), 401, 'UNAUTHORIZED');
      const res = await call(e, a, tokens.get(e.permission));
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.message, `${e.method} ${e.path(a)}`).toContain(e.permission);
    }
    // A token with only the needed permission gets through (anything but 401/403).
    for (const e of ENDPOINTS) {
      if (e.path(a) === '/sandbox/reset') continue;
      const res = await call(e, a, await tokenWith(a.p, [e.permission]));
      expect([401, 403], `${e.method} ${e.path(a)}`).not.toContain(res.status);
    }
  });

  it("another platform's resources answer 404 exactly like unknown ones", async () => {
    const { a, b } = await world();
    // b's ids used with a's credentials.
    // The code, and the finer case `details.reason` names where the code is REFERENCE_NOT_FOUND.
    const expected: Record<string, [string, string?]> = {
      '/quotes': ['REFERENCE_NOT_FOUND', 'INTERNAL_ACCOUNT_NOT_FOUND'],
      [`/quotes/${b.quote.id}`]: ['QUOTE_NOT_FOUND'],
      [`/quotes/${b.quote.id}/execute`]: ['QUOTE_NOT_FOUND'],
      '/transfer-in': ['REFERENCE_NOT_FOUND', 'INTERNAL_ACCOUNT_NOT_FOUND'],
      '/transfer-out': ['REFERENCE_NOT_FOUND', 'INTERNAL_ACCOUNT_NOT_FOUND'],
      [`/transactions/${b.tx.id}`]: ['TRANSACTION_NOT_FOUND'],
      [`/transactions/${b.tx.id}/approve`]: ['TRANSACTION_NOT_FOUND'],
      [`/transactions/${b.tx.id}/reject`]: ['TRANSACTION_NOT_FOUND'],
      '/sandbox/send': ['QUOTE_NOT_FOUND'],
      '/sandbox/uma/receive': ['UMA_NOT_FOUND'],
    };
    for (const e of ENDPOINTS) {
      const path = e.path(b);
      const [code, reason] = expected[path] ?? [];
      if (!code) continue;
      const res = await api(e.method, path, {
        auth: a.p.auth,
        body: e.body?.(b),
        headers: e.key ? { 'Idempotency-Key': crypto.randomUUID() } : {},
      });
      expectError(res, 404, code, reason);
    }
    const list = await api('GET', '/transactions', { auth: a.p.auth });
    expect(list.body.data.map((t: any) => t.id)).toEqual([a.tx.id, a.realtime.transactionId, a.quote.transactionId].sort().reverse());
    await expectLedgerInvariant(a.p.id);
    await expectLedgerInvariant(b.p.id);
  });
});
