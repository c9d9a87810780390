import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, newPlatform, tokenWith } from '../support/api';
import { advance, createQuote, customerWithAccounts, execute, externalAccount, fund, statusPath, transfer } from '../support/payments';

const T0 = Date.parse('2032-06-01T08:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** A funded customer (USD 1,000.00) and an external account of theirs ending in `suffix`. */
async function setup(suffix: string, currencyCode = 'USD') {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 100_000);
  const ext = await externalAccount(p, customer.id, currencyCode, suffix);
  return { p, usd: accounts.USD!, ext };
}

const history = (auth: string, id: string) => api('GET', `/transactions/${id}/history`, { auth });

describe('GET /transactions/{transactionId}/history', () => {
  it('lists every status a quote went through, oldest first, on the sandbox clock (suffix 005: completes, then fails)', async () => {
    const { p, usd, ext } = await setup('005', 'EUR');
    const quote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: usd },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    const id = quote.transactionId as string;
    expect((await history(p.auth, id)).body).toEqual({ data: [{ status: 'PENDING', changedAt: at(0) }] });
    expect((await execute(p, quote.id)).status).toBe(200);
    await advance(p, 5);
    await advance(p, 60);
    const res = await history(p.auth, id);
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.body).toEqual({
      data: [
        { status: 'PENDING', changedAt: at(0) },
        { status: 'PROCESSING', previousStatus: 'PENDING', changedAt: at(0) },
        { status: 'COMPLETED', previousStatus: 'PROCESSING', changedAt: at(5) },
        { status: 'FAILED', previousStatus: 'COMPLETED', changedAt: at(65) },
      ],
    });
    // The same order the stored history has, ending in the status GET /transactions/{id} shows.
    expect(res.body.data.map((c: { status: string }) => c.status)).toEqual(await statusPath(id));
    expect((await api('GET', `/transactions/${id}`, { auth: p.auth })).body.status).toBe('FAILED');
  });

  it('follows a transfer-out that stays pending and then fails (suffix 005) as the clock is advanced', async () => {
    const { p, usd, ext } = await setup('005');
    const res = await transfer(p, 'out', usd, ext, 12_550);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await history(p.auth, res.body.id)).body).toEqual({ data: [{ status: 'PROCESSING', changedAt: at(0) }] });
    await advance(p, 29);
    expect((await history(p.auth, res.body.id)).body.data).toHaveLength(1);
    await advance(p, 1);
    expect((await history(p.auth, res.body.id)).body).toEqual({
      data: [
        { status: 'PROCESSING', changedAt: at(0) },
        { status: 'FAILED', previousStatus: 'PROCESSING', changedAt: at(30) },
      ],
    });
  });

  it('is 404 TRANSACTION_NOT_FOUND for an unknown id and for another platform’s transaction', async () => {
    const { p, usd, ext } = await setup('321');
    const other = await newPlatform();
    const res = await transfer(p, 'out', usd, ext, 1_000);
    expect(res.status).toBe(201);
    expect((await history(p.auth, res.body.id)).body.data.map((c: { status: string }) => c.status)).toEqual(['PROCESSING', 'COMPLETED']);
    expectError(await history(other.auth, res.body.id), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await history(p.auth, 'Transaction:00000000-0000-7000-8000-000000000000'), 404, 'TRANSACTION_NOT_FOUND');
    // Exactly as GET /transactions/{id} answers it.
    expectError(await api('GET', `/transactions/${res.body.id}`, { auth: other.auth }), 404, 'TRANSACTION_NOT_FOUND');
  });

  it('needs VIEW', async () => {
    const { p, usd, ext } = await setup('321');
    const res = await transfer(p, 'out', usd, ext, 1_000);
    expectError(await history(await tokenWith(p, ['TRANSACT', 'MANAGE']), res.body.id), 403, 'FORBIDDEN');
    expect((await history(await tokenWith(p, ['VIEW']), res.body.id)).status).toBe(200);
  });
});
