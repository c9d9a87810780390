import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, newPlatform } from '../support/api';
import {
  balanceOf,
  createQuote,
  customerWithAccounts,
  eventsAbout,
  execute,
  expectLedgerInvariant,
  externalAccount,
  fund,
  postings,
  statusPath,
  tx,
} from '../support/payments';

const T0 = Date.parse('2032-02-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

async function setup(source: 'USD' | 'wallet' = 'USD', funds = 100_000) {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  const from = accounts[source]!;
  await fund(p, from, funds);
  const ext = await externalAccount(p, customer.id, 'EUR', '123');
  const quote = await createQuote(p, {
    source: { sourceType: 'ACCOUNT', accountId: from },
    destination: { destinationType: 'ACCOUNT', accountId: ext },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10_000,
  });
  return { p, from, ext, quote };
}

describe('execute idempotency (Idempotency-Key)', () => {
  it('replays the stored response for the same key without moving money again', async () => {
    const { p, from, quote } = await setup();
    const first = await execute(p, quote.id, 'exec-1');
    expect(first.status).toBe(200);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    const again = await execute(p, quote.id, 'exec-1');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await balanceOf(p, from)).toBe(90_000);
    expect(await postings(quote.transactionId)).toEqual(['DEBIT']);
    await expectLedgerInvariant(p.id);
  });

  it('answers 422 when the key is reused for another request, and replays refusals too', async () => {
    const { p, quote } = await setup();
    const other = await setup();
    expect((await execute(p, quote.id, 'shared')).status).toBe(200);
    const otherQuote = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: (await customerWithAccounts(p)).accounts.USD },
      destination: { destinationType: 'ACCOUNT', accountId: quote.destination.accountId },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expectError(await execute(p, otherQuote.id, 'shared'), 422, 'IDEMPOTENCY_KEY_REUSED');
    // A refusal (4xx) is stored and replayed as well: a shortfall stays a shortfall under its key.
    const poor = await setup('USD', 100);
    const refused = await execute(poor.p, poor.quote.id, 'poor');
    expectError(refused, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    await fund(poor.p, poor.from, 100_000);
    const replay = await execute(poor.p, poor.quote.id, 'poor');
    expectError(replay, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await execute(poor.p, poor.quote.id, 'poor-2')).status).toBe(200);
    // Keys are per platform.
    expect((await execute(other.p, other.quote.id, 'shared')).status).toBe(200);
  });

  it('twenty concurrent executes with one key move the money once', async () => {
    const { p, from, quote } = await setup();
    const results = await Promise.all(Array.from({ length: 20 }, () => execute(p, quote.id, 'same-key')));
    const ok = results.filter((r) => r.status === 200);
    const busy = results.filter((r) => r.status === 409);
    expect(ok.length + busy.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of busy) expect(r.body).toMatchObject({ code: 'CONFLICT', details: { reason: 'IDEMPOTENCY_REQUEST_IN_PROGRESS' } });
    for (const r of ok) expect(r.body).toEqual(ok[0]!.body);
    expect(await balanceOf(p, from)).toBe(90_000);
    expect(await postings(quote.transactionId)).toEqual(['DEBIT']);
    expect(await statusPath(quote.transactionId)).toEqual(['PENDING', 'PROCESSING']);
    expect((await eventsAbout(p.id, quote.transactionId)).map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.PROCESSING']);
    await expectLedgerInvariant(p.id);
  });

  it('twenty concurrent executes with different keys: executed once, the others refused', async () => {
    const { p, from, quote } = await setup();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => execute(p, quote.id, `key-${i}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(19);
    for (const r of refused) expectError(r, 409, 'CONFLICT', 'QUOTE_NOT_PENDING');
    expect(await balanceOf(p, from)).toBe(90_000);
    expect(await postings(quote.transactionId)).toEqual(['DEBIT']);
    await expectLedgerInvariant(p.id);
  });
});

describe('execute from an embedded wallet (signed retry)', () => {
  it('answers a 202 challenge, then executes on the signed retry with the same key', async () => {
    const { p, from, quote } = await setup('wallet');
    const first = await execute(p, quote.id, 'wallet-1');
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body).toEqual({
      payloadToSign: expect.any(String),
      requestId: expect.stringMatching(/^Request:/),
      expiresAt: new Date(T0 + 5 * 60_000).toISOString(),
    });
    const payload = JSON.parse(first.body.payloadToSign);
    expect(payload).toMatchObject({
      type: 'ACTIVITY_TYPE_SIGN_TRANSACTION',
      organizationId: from,
      parameters: { quoteId: quote.id, totalSendingAmount: 10_000, sendingCurrency: 'USD', bodyHash: expect.any(String) },
    });
    // Nothing moved on the challenge.
    expect(await balanceOf(p, from)).toBe(100_000);
    expect((await tx(p, quote.transactionId)).status).toBe('PENDING');

    const signed = { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': first.body.requestId };
    const done = await execute(p, quote.id, 'wallet-1', signed);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ id: quote.id, status: 'PROCESSING' });
    expect(await balanceOf(p, from)).toBe(90_000);
    // The request id is single-use; the key replays the success.
    const replay = await execute(p, quote.id, 'wallet-1', signed);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expectError(await execute(p, quote.id, 'wallet-2', signed), 401, 'UNAUTHORIZED');
    expect(await postings(quote.transactionId)).toEqual(['DEBIT']);
    await expectLedgerInvariant(p.id);
  });

  it('refuses a wrong signature, a missing Request-Id and a challenge for another quote', async () => {
    const { p, from, quote } = await setup('wallet');
    const challenge = (await execute(p, quote.id, 'a')).body;
    const bad = await execute(p, quote.id, 'a', { 'Service-Wallet-Signature': 'nope', 'Request-Id': challenge.requestId });
    expectError(bad, 401, 'UNAUTHORIZED');
    expect(bad.body.reason).toBe('Invalid Service-Wallet-Signature');
    expectError(await execute(p, quote.id, 'b', { 'Service-Wallet-Signature': 'sandbox-valid-signature' }), 401, 'REQUEST_ID_MISSING');
    const second = await createQuote(p, {
      source: { sourceType: 'ACCOUNT', accountId: from },
      destination: { destinationType: 'ACCOUNT', accountId: quote.destination.accountId },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 5_000,
    });
    const mismatch = await execute(p, second.id, 'c', {
      'Service-Wallet-Signature': 'sandbox-valid-signature',
      'Request-Id': challenge.requestId,
    });
    expectError(mismatch, 401, 'WALLET_SIGNATURE_BODY_MISMATCH');
    expect(await balanceOf(p, from)).toBe(100_000);
  });

  it('gives no challenge for a quote that cannot execute', async () => {
    const { p, quote } = await setup('wallet');
    vi.setSystemTime(T0 + 6 * 60_000);
    expectError(await execute(p, quote.id, 'late'), 409, 'CONFLICT', 'QUOTE_EXPIRED');
    const res = await api('POST', '/quotes', {
      auth: p.auth,
      body: {
        source: quote.source,
        destination: { destinationType: 'ACCOUNT', accountId: quote.destination.accountId },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 100,
        immediatelyExecute: true,
      },
    });
    expectError(res, 400, 'INVALID_INPUT');
  });
});
