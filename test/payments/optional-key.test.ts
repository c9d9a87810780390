import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, failingFields, newPlatform, type TestPlatform } from '../support/api';
import {
  balanceOf,
  createQuote,
  customerWithAccounts,
  expectLedgerInvariant,
  externalAccount,
  fund,
  postings,
  tx,
} from '../support/payments';

// The reference makes Idempotency-Key optional on transfers and execute (`required: false`); an SDK client
// sends none unless asked. Without one the request runs once as sent; with one, replays are unchanged.
const T0 = Date.parse('2032-04-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

async function setup(funds = 50_000) {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, funds);
  const ext = await externalAccount(p, customer.id, 'USD', '001');
  return { p, customer, accounts, usd: accounts.USD!, ext };
}

const keyless = (p: TestPlatform, direction: 'in' | 'out', source: string, destination: string, amount: number) =>
  api('POST', `/transfer-${direction}`, {
    auth: p.auth,
    body: { source: { accountId: source }, destination: { accountId: destination }, amount },
  });

const quoteFrom = (p: TestPlatform, from: string, ext: string) =>
  createQuote(p, {
    source: { sourceType: 'ACCOUNT', accountId: from },
    destination: { destinationType: 'ACCOUNT', accountId: ext },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 10_000,
  });

const executeKeyless = (p: TestPlatform, quoteId: string, headers: Record<string, string> = {}) =>
  api('POST', `/quotes/${quoteId}/execute`, { auth: p.auth, headers });

const transactionsOf = async (p: TestPlatform, type: string) =>
  (await api('GET', `/transactions?type=${type}&limit=100`, { auth: p.auth })).body.data.filter(
    (t: { source: { sourceType: string } }) => t.source.sourceType === 'ACCOUNT',
  );

describe('without an Idempotency-Key', () => {
  it('transfer-out and transfer-in run once each and move the money once', async () => {
    const { p, usd, ext } = await setup();
    const out = await keyless(p, 'out', usd, ext, 1_000);
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    expect(out.headers.get('Idempotent-Replayed')).toBeNull();
    expect(out.body).toMatchObject({ type: 'OUTGOING', status: 'COMPLETED', receivedAmount: { amount: 1_000 } });
    expect(await balanceOf(p, usd)).toBe(49_000);
    expect(await postings(out.body.id)).toContain('DEBIT');

    const incoming = await keyless(p, 'in', ext, usd, 300);
    expect(incoming.status, JSON.stringify(incoming.body)).toBe(201);
    expect(incoming.body).toMatchObject({ type: 'INCOMING', receivedAmount: { amount: 300 } });
    expect((await tx(p, incoming.body.id)).id).toBe(incoming.body.id);
    await expectLedgerInvariant(p.id);
  });

  it('two identical transfer-outs are two transfers', async () => {
    const { p, usd, ext } = await setup();
    const a = await keyless(p, 'out', usd, ext, 1_000);
    const b = await keyless(p, 'out', usd, ext, 1_000);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers.get('Idempotent-Replayed')).toBeNull();
    expect(await balanceOf(p, usd)).toBe(48_000);
    await expectLedgerInvariant(p.id);
  });

  it('concurrent identical transfer-outs never overdraw: each that fits moves money, the rest are refused', async () => {
    const { p, usd, ext } = await setup(5_000);
    const results = await Promise.all(Array.from({ length: 8 }, () => keyless(p, 'out', usd, ext, 1_000)));
    const ok = results.filter((r) => r.status === 201);
    for (const r of results.filter((r) => r.status !== 201)) expectError(r, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    expect(ok).toHaveLength(5);
    expect(new Set(ok.map((r) => r.body.id)).size).toBe(5);
    expect(await balanceOf(p, usd)).toBe(0);
    await expectLedgerInvariant(p.id);
  });

  it('execute runs once; executing the executed quote again is 409, not a second payment', async () => {
    const { p, usd, customer } = await setup();
    const quote = await quoteFrom(p, usd, await externalAccount(p, customer.id, 'EUR', '123'));
    const first = await executeKeyless(p, quote.id);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ id: quote.id, status: 'PROCESSING' });
    const balance = await balanceOf(p, usd);
    const again = await executeKeyless(p, quote.id);
    expectError(again, 409, 'CONFLICT', 'QUOTE_NOT_PENDING');
    expect(await balanceOf(p, usd)).toBe(balance);
    expect(await postings(quote.transactionId)).toEqual(['DEBIT']);
    await expectLedgerInvariant(p.id);
  });

  it('an embedded-wallet execute is still a signed retry: the challenge, then the signed retry, both without a key', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.wallet!, 100_000);
    const quote = await quoteFrom(p, accounts.wallet!, await externalAccount(p, customer.id, 'EUR', '123'));
    const challenge = await executeKeyless(p, quote.id);
    expect(challenge.status, JSON.stringify(challenge.body)).toBe(202);
    expect(challenge.body).toMatchObject({ payloadToSign: expect.any(String), requestId: expect.stringMatching(/^Request:/) });
    expect(await balanceOf(p, accounts.wallet!)).toBe(100_000);
    const signed = { 'Service-Wallet-Signature': 'sandbox-valid-signature', 'Request-Id': challenge.body.requestId };
    const done = await executeKeyless(p, quote.id, signed);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ id: quote.id, status: 'PROCESSING' });
    // The request id is single-use: repeating the signed retry moves nothing.
    expectError(await executeKeyless(p, quote.id, signed), 401, 'UNAUTHORIZED');
    expect(await balanceOf(p, accounts.wallet!)).toBe(90_000);
    expect(await postings(quote.transactionId)).toEqual(['DEBIT']);
    await expectLedgerInvariant(p.id);
  });

  it('writes no replay record, so a later request with a key is a new operation', async () => {
    const { p, usd, ext } = await setup();
    const plain = await keyless(p, 'out', usd, ext, 1_000);
    const keyed = await api('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'after-keyless' },
      body: { source: { accountId: usd }, destination: { accountId: ext }, amount: 1_000 },
    });
    expect(keyed.status).toBe(201);
    expect(keyed.body.id).not.toBe(plain.body.id);
    expect(keyed.headers.get('Idempotent-Replayed')).toBeNull();
    expect((await transactionsOf(p, 'OUTGOING')).length).toBe(2);
  });

  it('a key that is sent must be valid: an empty one is 400 naming the header, and nothing moves', async () => {
    const { p, usd, ext } = await setup();
    const res = await api('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': '' },
      body: { source: { accountId: usd }, destination: { accountId: ext }, amount: 1_000 },
    });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['Idempotency-Key']);
    expect(await balanceOf(p, usd)).toBe(50_000);
  });
});

describe('with an Idempotency-Key, replays are unchanged', () => {
  it('transfer-in, transfer-out and execute replay the first answer', async () => {
    const { p, usd, ext, customer } = await setup();
    for (const [direction, from, to] of [
      ['out', usd, ext],
      ['in', ext, usd],
    ] as const) {
      const send = () =>
        api('POST', `/transfer-${direction}`, {
          auth: p.auth,
          headers: { 'Idempotency-Key': `k-${direction}` },
          body: { source: { accountId: from }, destination: { accountId: to }, amount: 700 },
        });
      const first = await send();
      const again = await send();
      expect(first.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    }
    expect(await balanceOf(p, usd)).toBe(50_000);
    const quote = await quoteFrom(p, usd, await externalAccount(p, customer.id, 'EUR', '123'));
    const first = await executeKeyless(p, quote.id, { 'Idempotency-Key': 'k-exec' });
    const again = await executeKeyless(p, quote.id, { 'Idempotency-Key': 'k-exec' });
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await postings(quote.transactionId)).toEqual(['DEBIT']);
    await expectLedgerInvariant(p.id);
  });
});

describe('/openapi.json', () => {
  it('documents the Idempotency-Key as optional wherever it is taken', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const operations: [string, string][] = [
      ['/transfer-in', 'post'],
      ['/transfer-out', 'post'],
      ['/quotes/{quoteId}/execute', 'post'],
      ['/quotes', 'post'],
      ['/agents/me/transfer-in', 'post'],
      ['/agents/me/transfer-out', 'post'],
      ['/agents/me/quotes/{quoteId}/execute', 'post'],
    ];
    for (const [path, method] of operations) {
      const header = doc.paths[path][method].parameters.find(
        (x: { name: string; in: string }) => x.in === 'header' && x.name === 'Idempotency-Key',
      );
      expect(header, path).toMatchObject({ required: false });
    }
  });
});
