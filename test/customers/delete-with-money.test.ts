import { env } from 'cloudflare:test';
import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { loadTogether } from '../../src/db/client';
import { platforms, transactionAccounts, transactions } from '../../src/db/schema';
import { settings } from '../../src/env';
import { logger } from '../../src/http/log';
import { paymentDeps } from '../../src/payments/transaction-change';
import { checkedPair, transferChange, transferLoads } from '../../src/payments/transfers-service';
import { commitChange } from '../../src/http/change';
import { api, expectError, newPlatform, type ApiResult, type TestPlatform } from '../support/api';
import { accountsOf } from '../support/customers';
import {
  advance,
  balanceOf,
  createQuote,
  customerWithAccounts,
  db,
  expectLedgerInvariant,
  externalAccount,
  fund,
  transfer,
  tx,
} from '../support/payments';

// No money is ever stranded: a customer is deleted only once none of its money is in flight and its
// accounts are empty (as a bank refuses to close a funded account); a refused deletion changes nothing.

const T0 = Date.parse('2032-04-01T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));

const del = (p: TestPlatform, id: string) => api('DELETE', `/customers/${id}`, { auth: p.auth });

/** 409 naming what holds the customer; `final`: only moving money out can change it (x-should-retry: false). */
function expectRefused(res: ApiResult, details: { fundedAccounts?: unknown[]; pendingTransactions?: unknown[] }, final: boolean) {
  expectError(res, 409, 'CONFLICT');
  expect(res.body.details).toEqual({ fundedAccounts: [], pendingTransactions: [], ...details });
  expect(res.headers.get('x-should-retry')).toBe(final ? 'false' : null);
}

async function expectIntact(p: TestPlatform, customerId: string) {
  expect((await api('GET', `/customers/${customerId}`, { auth: p.auth })).body.isDeleted).toBe(false);
  expect((await accountsOf(p, customerId)).every((a) => a.status === 'ACTIVE')).toBe(true);
}

describe('DELETE /customers/{id} with money', () => {
  it('refuses while a transfer-out is in flight, then while its refund sits in the account, and deletes once it is moved out', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 10_000);
    const failing = await externalAccount(p, customer.id, 'USD', '005');
    const out = await transfer(p, 'out', accounts.USD!, failing, 10_000);
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    expect(await balanceOf(p, accounts.USD!)).toBe(0);

    // The payout is in flight: a retry gets past once it settles, so no x-should-retry: false.
    expectRefused(await del(p, customer.id), { pendingTransactions: [{ id: out.body.id, status: 'PROCESSING' }] }, false);
    await expectIntact(p, customer.id);

    await advance(p, 31);
    expect(await tx(p, out.body.id)).toMatchObject({ status: 'FAILED', refund: { status: 'COMPLETED' } });
    expect(await balanceOf(p, accounts.USD!)).toBe(10_000);
    expectRefused(
      await del(p, customer.id),
      { fundedAccounts: [{ id: accounts.USD, balance: { amount: 10_000, currency: 'USD' } }] },
      true,
    );
    await expectIntact(p, customer.id);

    // The refund can still be moved out, since the account stayed open.
    const good = await externalAccount(p, customer.id, 'USD', '000');
    const moved = await transfer(p, 'out', accounts.USD!, good, 10_000);
    expect(moved.body.status).toBe('COMPLETED');
    const res = await del(p, customer.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await accountsOf(p, customer.id)).every((a) => a.status === 'CLOSED')).toBe(true);
    await expectLedgerInvariant(p.id);
  });

  it('refuses while an account holds funds (final), naming every funded account, and changes nothing', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 5);
    await fund(p, accounts.EUR!, 7);
    const res = await del(p, customer.id);
    expectRefused(
      res,
      {
        fundedAccounts: [
          { id: accounts.USD, balance: { amount: 5, currency: 'USD' } },
          { id: accounts.EUR, balance: { amount: 7, currency: 'EUR' } },
        ].sort((a, b) => a.id!.localeCompare(b.id!)),
      },
      true,
    );
    await expectIntact(p, customer.id);
    // The accounts still take and give money.
    await fund(p, accounts.USD!, 1);
    expect(await balanceOf(p, accounts.USD!)).toBe(6);
  });

  it('refuses while an incoming payment or a transfer-in is pending, and while a quote paying into its account is open', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    const incoming = await api('POST', '/sandbox/uma/receive', {
      auth: p.auth,
      body: { senderUmaAddress: '$x@s.example', customerId: customer.id, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 300 },
    });
    expect(incoming.status, JSON.stringify(incoming.body)).toBe(200);
    const pull = await transfer(p, 'in', await externalAccount(p, customer.id, 'EUR', '005'), accounts.EUR!, 400);
    expect(pull.body.status).toBe('PENDING');
    expectRefused(
      await del(p, customer.id),
      {
        pendingTransactions: [
          { id: incoming.body.id, status: 'PENDING' },
          { id: pull.body.id, status: 'PENDING' },
        ],
      },
      false,
    );
    await advance(p, 31);
    // The incoming payment landed, the pull failed: money in the account now.
    expectRefused(await del(p, customer.id), { fundedAccounts: [{ id: accounts.USD, balance: { amount: 300, currency: 'USD' } }] }, true);

    // Another customer's open quote into this customer's account holds it too.
    const payee = await customerWithAccounts(p);
    const payer = await customerWithAccounts(p);
    await fund(p, payer.accounts.USD!, 1_000);
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: payer.accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: payee.accounts.EUR },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 500,
    });
    expectRefused(await del(p, payee.customer.id), { pendingTransactions: [{ id: quote.transactionId, status: 'PENDING' }] }, false);
    await advance(p, 6 * 60);
    expect((await del(p, payee.customer.id)).status).toBe(200);
    await expectLedgerInvariant(p.id);
  });

  it('a payout completed but still returnable by the bank holds the customer until its return is due', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 2_000);
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: await externalAccount(p, customer.id, 'USD', '005') },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 2_000,
      immediatelyExecute: true,
    });
    await advance(p, 6);
    expect((await tx(p, quote.transactionId)).status).toBe('COMPLETED');
    expect(await balanceOf(p, accounts.USD!)).toBe(0);
    expectRefused(await del(p, customer.id), { pendingTransactions: [{ id: quote.transactionId, status: 'COMPLETED' }] }, false);
    await advance(p, 61);
    expect((await tx(p, quote.transactionId)).status).toBe('FAILED');
    expect(await balanceOf(p, accounts.USD!)).toBe(2_000);
    expectRefused(await del(p, customer.id), { fundedAccounts: [{ id: accounts.USD, balance: { amount: 2_000, currency: 'USD' } }] }, true);
    await expectLedgerInvariant(p.id);
  });

  it('of a deletion and a transfer-in racing, never both succeed, and no money lands in a closed account', async () => {
    const p = await newPlatform();
    for (let i = 0; i < 6; i++) {
      const { customer, accounts } = await customerWithAccounts(p);
      const bank = await externalAccount(p, customer.id, 'USD', '000');
      const [pull, gone] = await Promise.all([transfer(p, 'in', bank, accounts.USD!, 100), del(p, customer.id)]);
      expect([200, 409]).toContain(gone.status);
      if (gone.status === 200) {
        expectError(pull, 409, 'CONFLICT');
        expect(await balanceOf(p, accounts.USD!)).toBe(0);
      } else {
        expect(pull.status, JSON.stringify(pull.body)).toBe(201);
        expect(gone.body.details.fundedAccounts.length + gone.body.details.pendingTransactions.length).toBeGreaterThan(0);
      }
    }
    await expectLedgerInvariant(p.id);
  });

  it('a transfer read before the deletion cannot commit after it: its own batch finds the account closed', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    const bank = await externalAccount(p, customer.id, 'USD', '000');
    const input = { sourceAccountId: bank, destinationAccountId: accounts.USD!, amount: 100 };
    // The request's read, as POST /transfer-in does it: both accounts active.
    const [platform] = await db().select().from(platforms).where(eq(platforms.id, p.id));
    const pair = checkedPair(platform!, 'IN', await loadTogether(db(), transferLoads(db(), sql`${p.id}`, 'IN', input)));
    // The deletion lands in the window between that read and the transfer's batch.
    expect((await del(p, customer.id)).status).toBe(200);
    const deps = paymentDeps({ db: db(), env, log: logger('error'), settings: settings(env) });
    await expect(commitChange(deps, await transferChange(deps, platform!, 'IN', input.amount, pair, Date.now()))).rejects.toMatchObject({
      status: 409,
      code: 'CONFLICT',
    });
    expect(
      await db()
        .select()
        .from(transactions)
        .where(sql`${transactionAccounts.destination} = ${accounts.USD!}`),
    ).toEqual([]);
    expect(await balanceOf(p, accounts.USD!)).toBe(0);
    await expectLedgerInvariant(p.id);
  });
});
