import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, newPlatform, tokenWith } from '../support/api';
import { walk } from '../support/customers';
import { advance, createQuote, customerWithAccounts, execute, externalAccount, fund } from '../support/payments';

const T0 = Date.parse('2032-05-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const UMA_RECEIVER = '$success.eur@sandbox.uma.test';
const toAccount = (from: string, to: string) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: 10_000,
});
const toUma = (from: string) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'UMA_ADDRESS', umaAddress: UMA_RECEIVER },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: 1_000,
});

/**
 * Two customers' quotes, one a second: q1 executed (PROCESSING, completes 5 s later), q2 to a UMA
 * receiver (PENDING), q3 of the second customer executed to a 002 account (FAILED at once), q4 PENDING.
 */
async function world() {
  const p = await newPlatform();
  const a = await customerWithAccounts(p);
  const b = await customerWithAccounts(p);
  await fund(p, a.accounts.USD!, 100_000);
  await fund(p, b.accounts.USD!, 100_000);
  const extA = await externalAccount(p, a.customer.id, 'EUR', '123');
  const extB = await externalAccount(p, b.customer.id, 'EUR', '002');
  const at = async (seconds: number, body: Record<string, unknown>, run = false) => {
    vi.setSystemTime(T0 + seconds * 1000);
    const quote = await createQuote(p, body);
    if (run) expect((await execute(p, quote.id)).status).toBe(200);
    return quote.id as string;
  };
  const q1 = await at(0, toAccount(a.accounts.USD!, extA), true);
  const q2 = await at(1, toUma(a.accounts.USD!));
  const q3 = await at(2, toAccount(b.accounts.USD!, extB), true);
  const q4 = await at(3, toAccount(a.accounts.USD!, extA));
  return { p, a, b, extA, extB, q1, q2, q3, q4 };
}

describe('GET /quotes', () => {
  it('lists the platform’s quotes newest first, each as GET /quotes/{quoteId} shows it, and narrows by every filter', async () => {
    const { p, a, b, extA, extB, q1, q2, q3, q4 } = await world();
    const ids = async (q = '') => {
      const res = await api('GET', `/quotes${q ? `?${q}` : ''}`, { auth: p.auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((x: { id: string }) => x.id);
    };

    const all = await api('GET', '/quotes', { auth: p.auth });
    expect(all.body).toMatchObject({ hasMore: false, totalCount: 4 });
    expect(all.body).not.toHaveProperty('nextCursor');
    expect(all.body.data.map((x: { id: string }) => x.id)).toEqual([q4, q3, q2, q1]);
    for (const quote of all.body.data) expect(quote).toEqual((await api('GET', `/quotes/${quote.id}`, { auth: p.auth })).body);
    expect(all.body.data.map((x: { status: string }) => x.status)).toEqual(['PENDING', 'FAILED', 'PENDING', 'PROCESSING']);

    expect(await ids(`customerId=${a.customer.id}`)).toEqual([q4, q2, q1]);
    expect(await ids(`customerId=${b.customer.id}`)).toEqual([q3]);
    expect(await ids(`customerId=${p.id}`)).toEqual([]);
    expect(await ids(`sendingAccountId=${b.accounts.USD}`)).toEqual([q3]);
    expect(await ids(`receivingAccountId=${extA}`)).toEqual([q4, q1]);
    expect(await ids(`receivingAccountId=${extB}`)).toEqual([q3]);
    expect(await ids(`receivingUmaAddress=${encodeURIComponent(UMA_RECEIVER.toUpperCase())}`)).toEqual([q2]);
    expect(await ids(`sendingUmaAddress=${encodeURIComponent(a.customer.umaAddress)}`)).toEqual([q2]);
    expect(await ids(`sendingUmaAddress=${encodeURIComponent(b.customer.umaAddress)}`)).toEqual([]);
    expect(await ids('status=PENDING')).toEqual([q4, q2]);
    expect(await ids('status=PROCESSING')).toEqual([q1]);
    expect(await ids('status=FAILED')).toEqual([q3]);
    expect(await ids('status=COMPLETED')).toEqual([]);
    expect(await ids('status=EXPIRED')).toEqual([]);
    const second = (s: number) => encodeURIComponent(new Date(T0 + s * 1000).toISOString());
    expect(await ids(`createdAfter=${second(1)}&createdBefore=${second(2)}`)).toEqual([q3, q2]);
    expect(await ids(`createdAfter=${second(3)}`)).toEqual([q4]);
    expect(await ids(`createdBefore=${second(0)}`)).toEqual([q1]);
    // Combined filters are all applied.
    expect(await ids(`customerId=${a.customer.id}&status=PENDING`)).toEqual([q4, q2]);
    expect(await ids(`sendingAccountId=${a.accounts.USD}&receivingAccountId=${extA}&createdAfter=${second(1)}`)).toEqual([q4]);
    expect(await ids(`customerId=${b.customer.id}&status=PENDING`)).toEqual([]);

    // Pages keep the filter; a filtered list has no maintained count, so no total (docs/conventions.md: totalCount).
    const page = await api('GET', `/quotes?customerId=${a.customer.id}&limit=2`, { auth: p.auth });
    expect(page.body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
    expect(page.body).not.toHaveProperty('totalCount');
    expect(page.body.data.map((x: { id: string }) => x.id)).toEqual([q4, q2]);
    const next = await api('GET', `/quotes?customerId=${a.customer.id}&limit=2&cursor=${encodeURIComponent(page.body.nextCursor)}`, {
      auth: p.auth,
    });
    expect(next.body).toMatchObject({ hasMore: false });
    expect(next.body).not.toHaveProperty('totalCount');
    // The unfiltered list's total is the platform's maintained count, on every page.
    const firstOfAll = await api('GET', '/quotes?limit=1', { auth: p.auth });
    const secondOfAll = await api('GET', `/quotes?limit=1&cursor=${encodeURIComponent(firstOfAll.body.nextCursor)}`, { auth: p.auth });
    expect([firstOfAll.body.totalCount, secondOfAll.body.totalCount]).toEqual([4, 4]);
    expect(next.body.data.map((x: { id: string }) => x.id)).toEqual([q1]);
    expect((await walk(`/quotes?receivingAccountId=${extA}&limit=1`, p.auth)).map((x) => x.id)).toEqual([q4, q1]);
    expect((await api('POST', '/sandbox/reset', { auth: p.auth })).status).toBe(204);
    expect((await api('GET', '/quotes', { auth: p.auth })).body).toEqual({ data: [], hasMore: false, totalCount: 0 });
  });

  it('a pending quote past its expiresAt is EXPIRED in GET and in the status filter, before and after its expiry runs', async () => {
    const { p, q1, q2, q3, q4 } = await world();
    const ids = async (q: string) => (await api('GET', `/quotes?${q}`, { auth: p.auth })).body.data.map((x: { id: string }) => x.id);
    // q2 expires at T0+1s+5min, q4 at T0+3s+5min: between the two, only q2 has lapsed.
    vi.setSystemTime(T0 + 2000 + 5 * 60_000);
    expect((await api('GET', `/quotes/${q2}`, { auth: p.auth })).body.status).toBe('EXPIRED');
    expect((await api('GET', `/quotes/${q4}`, { auth: p.auth })).body.status).toBe('PENDING');
    expect(await ids('status=EXPIRED')).toEqual([q2]);
    expect(await ids('status=PENDING')).toEqual([q4]);
    vi.setSystemTime(T0 + 3000 + 5 * 60_000);
    expect(await ids('status=EXPIRED')).toEqual([q4, q2]);
    expect(await ids('status=PENDING')).toEqual([]);
    // Once the due transitions are applied, the transactions say so too and nothing moves.
    await advance(p, 1);
    expect(await ids('status=EXPIRED')).toEqual([q4, q2]);
    expect(await ids('status=COMPLETED')).toEqual([q1]);
    expect(await ids('status=FAILED')).toEqual([q3]);
    const listed = (await api('GET', '/quotes', { auth: p.auth })).body.data;
    for (const quote of listed) expect(quote).toEqual((await api('GET', `/quotes/${quote.id}`, { auth: p.auth })).body);
  });

  it('lists only the calling platform’s quotes, needs VIEW, and refuses bad and unknown parameters naming them', async () => {
    const { p, q1 } = await world();
    const other = await newPlatform();
    expect((await api('GET', '/quotes', { auth: other.auth })).body).toEqual({ data: [], hasMore: false, totalCount: 0 });
    expect((await api('GET', `/quotes?sendingAccountId=x`, { auth: other.auth })).body.data).toEqual([]);
    expectError(await api('GET', '/quotes', { auth: await tokenWith(p, ['TRANSACT']) }), 403, 'FORBIDDEN');
    expect((await api('GET', '/quotes', { auth: await tokenWith(p, ['VIEW']) })).body.data.at(-1).id).toBe(q1);
    for (const q of [
      'limit=0',
      'limit=101',
      'status=REJECTED',
      'status=pending',
      'createdAfter=yesterday',
      'createdBefore=2032-05-10',
      'cursor=%%%',
      'receivingUmaAddress=',
    ]) {
      expectError(await api('GET', `/quotes?${q}`, { auth: p.auth }), 400, 'INVALID_INPUT');
    }
    for (const name of ['sortOrder', 'accountId', 'startDate', 'customerID']) {
      const res = await api('GET', `/quotes?${name}=x&limit=5`, { auth: p.auth });
      expectError(res, 400, 'INVALID_INPUT');
      expect(res.body.details.fields).toEqual([{ field: name, message: 'Unknown field' }]);
      expect(res.body.message).toContain(name);
    }
  });
});
