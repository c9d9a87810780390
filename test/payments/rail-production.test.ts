import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { dueTransitions } from '../../src/db/schema';
import { SHOULD_RETRY_HEADER } from '../../src/http/errors';
import { signProviderMessage } from '../../src/crypto/provider-signature';
import { api, expectError, newPlatform, type TestPlatform } from '../support/api';
import { newAgent } from '../support/agents';
import {
  balanceOf,
  customerWithAccounts,
  db,
  eventsAbout,
  expectLedgerInvariant,
  externalAccount,
  fund,
  postings,
  statusPath,
} from '../support/payments';
import {
  COLLECTION_ACCOUNT,
  IDENTITY_SECRET,
  productionWorld,
  RAIL_SECRET,
  signedOutcome,
  type ProductionWorld,
} from '../support/providers';

const T0 = Date.parse('2032-06-01T12:00:00.000Z');

beforeEach(() => vi.setSystemTime(T0));
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** A platform with a funded USD account and a USD bank account of the same customer (set up through the sandbox API). */
async function setup(suffix = '123') {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 100_000);
  const ext = await externalAccount(p, customer.id, 'USD', suffix);
  return { p, customer, usd: accounts.USD!, eur: accounts.EUR!, ext };
}

const transferOut = (w: ProductionWorld, p: TestPlatform, from: string, to: string, amount: number) =>
  w.call('POST', '/transfer-out', { auth: p.auth, body: { source: { accountId: from }, destination: { accountId: to }, amount } });
const transferIn = (w: ProductionWorld, p: TestPlatform, from: string, to: string, amount: number) =>
  w.call('POST', '/transfer-in', { auth: p.auth, body: { source: { accountId: from }, destination: { accountId: to }, amount } });
/** POST /quotes from `source` to the internal or external account `to`, locked on the sending side. */
const quoteTo = (
  w: ProductionWorld,
  p: TestPlatform,
  source: Record<string, unknown>,
  to: string,
  amount: number,
  more: Record<string, unknown> = {},
) =>
  w.call('POST', '/quotes', {
    auth: p.auth,
    body: {
      source,
      destination: { destinationType: 'ACCOUNT', accountId: to },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: amount,
      ...more,
    },
  });
const account = (accountId: string) => ({ sourceType: 'ACCOUNT', accountId });
const read = (w: ProductionWorld, p: TestPlatform, id: string) => w.call('GET', `/transactions/${id}`, { auth: p.auth });
const eventTypes = async (p: TestPlatform, id: string) => (await eventsAbout(p.id, id)).map((e) => e.type);

/** The outcome a rail reports, signed with the rail's secret (or as told), through the outcome API. */
async function report(w: ProductionWorld, body: Record<string, unknown>, sign: Parameters<typeof signedOutcome>[1] = {}) {
  const { raw, headers } = await signedOutcome(body, sign);
  return w.call('POST', '/providers/rail/outcomes', { raw, headers });
}

/** The rail's one instruction of `type` for `paymentId`, delivered. */
function instructionFor(w: ProductionWorld, paymentId: string, type: string) {
  const found = w.instructions().filter((i) => i.body.paymentId === paymentId && i.type === type);
  expect(found, `${type} instructions for ${paymentId}`).toHaveLength(1);
  return found[0]!;
}

describe('production without a payment rail: nothing moves by itself', () => {
  it('every money-moving route answers 503 SERVICE_NOT_CONFIGURED and nothing is debited or recorded', async () => {
    const { p, customer, usd, eur, ext } = await setup();
    const w = productionWorld({ rail: false });
    const refused = [
      await transferOut(w, p, usd, ext, 1_000),
      await transferIn(w, p, ext, usd, 1_000),
      await quoteTo(w, p, account(usd), ext, 1_000, { immediatelyExecute: true }),
      await quoteTo(w, p, { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: customer.id }, ext, 1_000),
    ];
    for (const res of refused) {
      expectError(res, 503, 'SERVICE_NOT_CONFIGURED');
      expect(res.body.message).toContain('RAIL_URL');
    }
    expect(await balanceOf(p, usd)).toBe(100_000);
    const listed = await api('GET', '/transactions', { auth: p.auth });
    expect(listed.body.data).toEqual([]);
    expect(w.railCalls).toEqual([]);
    // Money that never leaves the ledger needs no rail: a conversion between two internal accounts completes.
    const internal = await quoteTo(w, p, account(usd), eur, 1_000, { immediatelyExecute: true });
    expect(internal.status, JSON.stringify(internal.body)).toBe(201);
    expect(internal.body.status).toBe('COMPLETED');
    await expectLedgerInvariant(p.id);
  });

  it("an agent's transfer is refused the same way, before its action is recorded", async () => {
    const a = await newAgent();
    const usd = a.accounts.find(
      (x: { type: string; balance: { currency: { code: string } } }) => x.type !== 'EMBEDDED_WALLET' && x.balance.currency.code === 'USD',
    ).id;
    await fund(a.p, usd, 10_000);
    const ext = await externalAccount(a.p, a.customerId, 'USD', '123');
    const w = productionWorld({ rail: false });
    const res = await w.call('POST', '/agents/me/transfer-out', {
      auth: a.bearer,
      body: { source: { accountId: usd }, destination: { accountId: ext }, amount: 500 },
    });
    expectError(res, 503, 'SERVICE_NOT_CONFIGURED');
    expect(await balanceOf(a.p, usd)).toBe(10_000);
    expect((await api('GET', '/agents/me/actions', { auth: a.bearer })).body.data).toEqual([]);
  });

  it('the outcome API answers 503 without RAIL_SECRET, and 404 in the sandbox (whose rules decide)', async () => {
    const w = productionWorld({ rail: false });
    expectError(
      await report(w, { paymentId: 'Transaction:x', platformId: 'Platform:x', status: 'COMPLETED' }),
      503,
      'SERVICE_NOT_CONFIGURED',
    );
    const { raw, headers } = await signedOutcome({ paymentId: 'Transaction:x', platformId: 'Platform:x', status: 'COMPLETED' });
    expectError(await api('POST', '/providers/rail/outcomes', { raw, headers }), 404, 'REFERENCE_NOT_FOUND', 'ROUTE_NOT_FOUND');
  });
});

describe('production with the operator rail: a payout', () => {
  it('stays PROCESSING until the rail reports; COMPLETED posts the ledger and the webhook once', async () => {
    const { p, usd, ext } = await setup('002'); // a sandbox magic suffix: ordinary in production
    const w = productionWorld();
    const res = await transferOut(w, p, usd, ext, 12_550);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'PROCESSING' });
    expect(res.body).not.toHaveProperty('failureReason');
    expect(await balanceOf(p, usd)).toBe(100_000 - 12_550);
    await w.deliver();
    // The instruction reached the rail, signed (the reference rail checks it) and complete.
    const payout = instructionFor(w, res.body.id, 'PAYOUT');
    expect(payout.body).toMatchObject({
      id: `${res.body.id}/PAYOUT`,
      paymentId: res.body.id,
      platformId: p.id,
      amount: 12_550,
      currency: 'USD',
      destination: { id: ext, accountInfo: { accountType: 'USD_ACCOUNT', accountNumber: expect.stringMatching(/002$/) } },
    });
    expect(w.railCalls.find((c) => c.body.includes(res.body.id))!.headers.get('Idempotency-Key')).toBe(`${res.body.id}/PAYOUT`);
    // Time passes: nothing happens by itself.
    vi.setSystemTime(T0 + 24 * 3_600_000);
    await w.sweep();
    expect((await read(w, p, res.body.id)).body.status).toBe('PROCESSING');
    expect(await postings(res.body.id)).toEqual(['DEBIT']);
    expect(await eventTypes(p, res.body.id)).toEqual(['OUTGOING_PAYMENT.PROCESSING']);

    const done = await w.settle(payout.key, 'COMPLETED');
    expect(done).toMatchObject({ answer: 200 });
    expect(JSON.parse((done as { response: string }).response)).toEqual({
      paymentId: res.body.id,
      status: 'COMPLETED',
      applied: true,
      transactionStatus: 'COMPLETED',
    });
    expect((await read(w, p, res.body.id)).body).toMatchObject({ status: 'COMPLETED', settledAt: expect.any(String) });
    // The same outcome again (a redelivery) changes nothing.
    const again = await w.settle(payout.key, 'COMPLETED');
    expect(JSON.parse((again as { response: string }).response)).toMatchObject({ applied: false, transactionStatus: 'COMPLETED' });
    expect(await postings(res.body.id)).toEqual(['DEBIT', 'SETTLE']);
    expect(await eventTypes(p, res.body.id)).toEqual(['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED']);
    expect(await statusPath(res.body.id)).toEqual(['PROCESSING', 'COMPLETED']);
    // A completed payout cannot fail: a payout that comes back is RETURNED.
    const failed = await report(w, { paymentId: res.body.id, platformId: p.id, status: 'FAILED', failureReason: 'OFFRAMP_FAILED' });
    expectError(failed, 409, 'CONFLICT');
    expect(failed.headers.get(SHOULD_RETRY_HEADER)).toBe('false');
    await expectLedgerInvariant(p.id);
  });

  it('FAILED refunds the account once, with its webhooks; repeats and contradictions change nothing', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const quote = await quoteTo(w, p, account(usd), ext, 20_000);
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    const executed = await w.call('POST', `/quotes/${quote.body.id}/execute`, { auth: p.auth });
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    expect(executed.body.status).toBe('PROCESSING');
    const id = quote.body.transactionId as string;
    await w.deliver();
    expect(instructionFor(w, id, 'PAYOUT').body).toMatchObject({ quoteId: quote.body.id, amount: quote.body.totalReceivingAmount });
    const body = { paymentId: id, platformId: p.id, status: 'FAILED', failureReason: 'OFFRAMP_FAILED' };
    const res = await report(w, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ paymentId: id, status: 'FAILED', applied: true, transactionStatus: 'FAILED', refundStatus: 'COMPLETED' });
    expect(await balanceOf(p, usd)).toBe(100_000);
    const repeat = await report(w, body);
    expect(repeat.body).toMatchObject({ applied: false, transactionStatus: 'FAILED' });
    expectError(await report(w, { paymentId: id, platformId: p.id, status: 'COMPLETED' }), 409, 'CONFLICT');
    expect(await postings(id)).toEqual(['DEBIT', 'REFUND']);
    expect(await eventTypes(p, id)).toEqual([
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_PENDING',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ]);
    expect((await read(w, p, id)).body).toMatchObject({
      failureReason: 'OFFRAMP_FAILED',
      refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' },
    });
    await expectLedgerInvariant(p.id);
  });

  it('out of order: RETURNED before COMPLETED completes it, returns and refunds at once; the late COMPLETED is a repeat', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const res = await transferOut(w, p, usd, ext, 5_000);
    const id = res.body.id as string;
    const returned = await report(w, { paymentId: id, platformId: p.id, status: 'RETURNED' });
    expect(returned.body).toMatchObject({ applied: true, transactionStatus: 'FAILED', refundStatus: 'COMPLETED' });
    const late = await report(w, { paymentId: id, platformId: p.id, status: 'COMPLETED' });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ applied: false, transactionStatus: 'FAILED' });
    expect((await report(w, { paymentId: id, platformId: p.id, status: 'RETURNED' })).body.applied).toBe(false);
    expect(await postings(id)).toEqual(['DEBIT', 'SETTLE', 'RETURN', 'REFUND']);
    expect(await statusPath(id)).toEqual(['PROCESSING', 'COMPLETED', 'FAILED']);
    expect(await balanceOf(p, usd)).toBe(100_000);
    await expectLedgerInvariant(p.id);
  });

  it('REFUNDED (cancelled before it went out) gives the money back; REJECTED keeps its reason', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const a = (await transferOut(w, p, usd, ext, 1_000)).body.id as string;
    const b = (await transferOut(w, p, usd, ext, 2_000)).body.id as string;
    expect((await report(w, { paymentId: a, platformId: p.id, status: 'REFUNDED' })).body).toMatchObject({
      transactionStatus: 'REFUNDED',
      refundStatus: 'COMPLETED',
    });
    expect(
      (await report(w, { paymentId: b, platformId: p.id, status: 'REJECTED', failureReason: 'MISSING_MANDATORY_PAYEE_DATA' })).body,
    ).toMatchObject({
      transactionStatus: 'REJECTED',
    });
    expect((await read(w, p, a)).body.refund).toMatchObject({ status: 'COMPLETED', reason: 'USER_CANCELLATION' });
    expect((await read(w, p, b)).body.failureReason).toBe('MISSING_MANDATORY_PAYEE_DATA');
    expect(await balanceOf(p, usd)).toBe(100_000);
    await expectLedgerInvariant(p.id);
  });

  it('concurrent deliveries of one outcome apply it once', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const id = (await transferOut(w, p, usd, ext, 3_000)).body.id as string;
    const answers = await Promise.all(Array.from({ length: 6 }, () => report(w, { paymentId: id, platformId: p.id, status: 'COMPLETED' })));
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(answers.filter((r) => r.body.applied)).toHaveLength(1);
    expect(await postings(id)).toEqual(['DEBIT', 'SETTLE']);
    expect((await eventTypes(p, id)).filter((t) => t === 'OUTGOING_PAYMENT.COMPLETED')).toHaveLength(1);
  });

  it('an outcome for a payment not yet with the rail is a retryable 409', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const quote = await quoteTo(w, p, account(usd), ext, 1_000);
    const early = await report(w, { paymentId: quote.body.transactionId, platformId: p.id, status: 'COMPLETED' });
    expectError(early, 409, 'CONFLICT');
    expect(early.headers.get(SHOULD_RETRY_HEADER)).toBeNull();
    expect(await balanceOf(p, usd)).toBe(100_000);
  });
});

describe('production with the operator rail: a transfer-in', () => {
  it('stays PENDING (nothing credited) until the rail reports the collection', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const ok = await transferIn(w, p, ext, usd, 7_000);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.status).toBe('PENDING');
    const ko = (await transferIn(w, p, ext, usd, 9_000)).body.id as string;
    expect(await balanceOf(p, usd)).toBe(100_000);
    await w.deliver();
    const collection = instructionFor(w, ok.body.id, 'COLLECTION');
    expect(collection.body).toMatchObject({ amount: 7_000, currency: 'USD', destinationAccountId: usd, source: { id: ext } });
    expect(await w.settle(collection.key, 'COMPLETED')).toMatchObject({ answer: 200 });
    expect(await w.settle(instructionFor(w, ko, 'COLLECTION').key, 'FAILED')).toMatchObject({ answer: 200 });
    expect((await read(w, p, ok.body.id)).body.status).toBe('COMPLETED');
    expect((await read(w, p, ko)).body).toMatchObject({ status: 'FAILED', failureReason: 'PAY_REQUEST_FAILED' });
    expect(await balanceOf(p, usd)).toBe(107_000);
    expect(await postings(ok.body.id)).toEqual(['CREDIT']);
    expect(await postings(ko)).toEqual([]);
    expectError(await report(w, { paymentId: ok.body.id, platformId: p.id, status: 'RETURNED' }), 409, 'CONFLICT');
    await expectLedgerInvariant(p.id);
  });
});

describe('production with the operator rail: real-time funding', () => {
  const fundedQuote = (w: ProductionWorld, p: TestPlatform, customerId: string, ext: string) =>
    quoteTo(w, p, { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId }, ext, 4_000);

  it("pays to the rail's own instructions; FUNDED starts the payout; a failed payout's refund is the rail's to report", async () => {
    const { p, customer, ext } = await setup();
    const w = productionWorld();
    const quote = await fundedQuote(w, p, customer.id, ext);
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    // Asked of the rail while the quote was created: never the sandbox's made-up details.
    expect(quote.body.paymentInstructions).toEqual([
      {
        instructionsNotes: expect.stringContaining(quote.body.reconciliationInstructions?.reference ?? ''),
        accountOrWalletInfo: { ...COLLECTION_ACCOUNT, reference: expect.any(String) },
      },
    ]);
    expect(JSON.stringify(quote.body)).not.toContain('Sandbox');
    const id = quote.body.transactionId as string;
    expect(instructionFor(w, id, 'FUNDING').body).toMatchObject({ quoteId: quote.body.id, amount: 4_000, currency: 'USD' });
    expect((await read(w, p, id)).body.status).toBe('PENDING');

    expect(await w.settle(instructionFor(w, id, 'FUNDING').key, 'FUNDED')).toMatchObject({ answer: 200 });
    expect((await read(w, p, id)).body.status).toBe('PROCESSING');
    expect((await report(w, { paymentId: id, platformId: p.id, status: 'FUNDED' })).body.applied).toBe(false);
    await w.deliver();
    await w.settle(instructionFor(w, id, 'PAYOUT').key, 'FAILED');
    // The payer is outside the service: the refund waits for the rail.
    expect((await read(w, p, id)).body).toMatchObject({ status: 'FAILED', refund: { status: 'PENDING' } });
    expect(await postings(id)).toEqual(['FUNDING']);
    await w.deliver();
    const refund = instructionFor(w, id, 'REFUND');
    expect(refund.body).toMatchObject({ amount: 4_000, currency: 'USD', quoteId: quote.body.id, reason: 'TRANSACTION_FAILED' });
    expect(await w.settle(refund.key, 'REFUND_COMPLETED')).toMatchObject({ answer: 200 });
    expect((await report(w, { paymentId: id, platformId: p.id, status: 'REFUND_COMPLETED' })).body.applied).toBe(false);
    expectError(await report(w, { paymentId: id, platformId: p.id, status: 'REFUND_FAILED' }), 409, 'CONFLICT');
    expect((await read(w, p, id)).body).toMatchObject({ status: 'FAILED', refund: { status: 'COMPLETED', settledAt: expect.any(String) } });
    expect(await postings(id)).toEqual(['FUNDING', 'REFUND']);
    expect(await eventTypes(p, id)).toEqual([
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_PENDING',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ]);
    await expectLedgerInvariant(p.id);
  });

  it('FUNDED after the quote expired is 409 QUOTE_EXPIRED (the money goes back to its payer); an unreachable rail is 503', async () => {
    const { p, customer, ext } = await setup();
    const w = productionWorld();
    const quote = await fundedQuote(w, p, customer.id, ext);
    vi.setSystemTime(T0 + 6 * 60_000);
    expectError(
      await report(w, { paymentId: quote.body.transactionId, platformId: p.id, status: 'FUNDED' }),
      409,
      'CONFLICT',
      'QUOTE_EXPIRED',
    );
    expect((await read(w, p, quote.body.transactionId)).body.status).toBe('EXPIRED');
    expect(await postings(quote.body.transactionId)).toEqual([]);
    w.railDown(() => new Response('down', { status: 502 }));
    const refused = await fundedQuote(w, p, customer.id, ext);
    expectError(refused, 503, 'SERVICE_UNAVAILABLE');
    expect(refused.body.details).toEqual({ provider: 'payment rail', reason: 'status 502' });
  });
});

describe('production never follows a sandbox plan', () => {
  it('a quote bound to a sandbox plan (an earlier release) is refused at execute, and nothing is debited', async () => {
    const { p, usd, ext } = await setup();
    const sandboxQuote = await api('POST', '/quotes', {
      auth: p.auth,
      body: {
        source: account(usd),
        destination: { destinationType: 'ACCOUNT', accountId: ext },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000,
      },
    });
    expect(sandboxQuote.status).toBe(201);
    const w = productionWorld();
    const res = await w.call('POST', `/quotes/${sandboxQuote.body.id}/execute`, { auth: p.auth });
    expectError(res, 409, 'CONFLICT');
    expect(res.body.message).toContain('earlier release');
    expect(await balanceOf(p, usd)).toBe(100_000);
    // Without a rail at all, the same quote is 503 like every payment.
    expectError(
      await productionWorld({ rail: false }).call('POST', `/quotes/${sandboxQuote.body.id}/execute`, { auth: p.auth }),
      503,
      'SERVICE_NOT_CONFIGURED',
    );
  });
});

describe('the outcome API refuses what the rail did not send', () => {
  it('forged, altered, stale or differently purposed signatures are 401 INVALID_SIGNATURE, and change nothing', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const id = (await transferOut(w, p, usd, ext, 1_000)).body.id as string;
    const body = { paymentId: id, platformId: p.id, status: 'COMPLETED' };
    const cases: [string, Promise<{ raw: string; headers: Record<string, string> }>][] = [
      ['mismatch', signedOutcome(body, { secret: 'another-secret-of-enough-length-0123456789' })],
      ['mismatch', signedOutcome(body, { purpose: 'rail-instruction' })],
      ['mismatch', signedOutcome(body, { secret: IDENTITY_SECRET, purpose: 'identity-outcome' })],
      ['stale', signedOutcome(body, { at: T0 - 6 * 60_000 })],
      ['stale', signedOutcome(body, { at: T0 + 6 * 60_000 })],
    ];
    for (const [reason, signed] of cases) {
      const { raw, headers } = await signed;
      const res = await w.call('POST', '/providers/rail/outcomes', { raw, headers });
      expectError(res, 401, 'INVALID_SIGNATURE');
      expect(res.body.details).toEqual({ reason });
    }
    const genuine = await signedOutcome(body);
    const altered = genuine.raw.replace('COMPLETED', 'REFUNDED');
    expect((await w.call('POST', '/providers/rail/outcomes', { raw: altered, headers: genuine.headers })).body.details).toEqual({
      reason: 'mismatch',
    });
    const { 'Service-Provider-Signature': _, ...unsigned } = genuine.headers;
    expect((await w.call('POST', '/providers/rail/outcomes', { raw: genuine.raw, headers: unsigned })).body.details).toEqual({
      reason: 'missing',
    });
    const malformed = { ...genuine.headers, 'Service-Provider-Signature': 'v1=abc' };
    expect((await w.call('POST', '/providers/rail/outcomes', { raw: genuine.raw, headers: malformed })).body.details).toEqual({
      reason: 'malformed',
    });
    expect((await read(w, p, id)).body.status).toBe('PROCESSING');
    expect(await postings(id)).toEqual(['DEBIT']);
    // The genuine one, signed with the rail's secret, applies.
    expect((await w.call('POST', '/providers/rail/outcomes', genuine)).body.applied).toBe(true);
    expect(RAIL_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('unknown and foreign payment ids are 404: another platform, a payment never handed to the rail', async () => {
    const { p, usd, eur, ext } = await setup();
    const other = await setup();
    const w = productionWorld();
    const id = (await transferOut(w, p, usd, ext, 1_000)).body.id as string;
    const sandboxTransfer = await api('POST', '/transfer-out', {
      auth: p.auth,
      body: { source: { accountId: usd }, destination: { accountId: ext }, amount: 100 },
    });
    expect(sandboxTransfer.status).toBe(201);
    const internal = await quoteTo(w, p, account(usd), eur, 100, { immediatelyExecute: true });
    for (const [paymentId, platformId] of [
      ['Transaction:019542f5-b3e7-1d02-0000-000000000099', p.id],
      [id, other.p.id],
      [sandboxTransfer.body.id, p.id],
      [internal.body.transactionId, p.id],
    ]) {
      expectError(await report(w, { paymentId, platformId, status: 'COMPLETED' }), 404, 'TRANSACTION_NOT_FOUND');
    }
    expect((await read(w, p, id)).body.status).toBe('PROCESSING');
    expectError(await report(w, { paymentId: id, platformId: p.id, status: 'FAILED' }), 400, 'INVALID_INPUT');
  });
});

describe('instructions reach the rail however long it is down', () => {
  it('a delivery that fails is retried later, backing off, under the same id; the rail takes it once', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    w.railDown(() => new Response('maintenance', { status: 503 }));
    const id = (await transferOut(w, p, usd, ext, 1_000)).body.id as string;
    // The sweep delivers what is due on every platform (other tests' too): this payment's deliveries only.
    const calls = () => w.railCalls.filter((c) => c.body.includes(id));
    await w.deliver();
    expect(calls()).toHaveLength(1);
    const pending = await db().select().from(dueTransitions).where(eq(dueTransitions.subjectId, id));
    const retry = pending.find((t) => t.appliedAt === null)!;
    expect(retry).toMatchObject({ kind: 'rail.instruct', data: { type: 'PAYOUT', attempt: 1 }, dueAt: T0 + 30_000 });
    // Not before it is due; then the sweep delivers it, and later ones back off further.
    await w.sweep();
    expect(calls()).toHaveLength(1);
    vi.setSystemTime(T0 + 31_000);
    await w.sweep();
    expect(calls()).toHaveLength(2);
    w.railDown(undefined);
    vi.setSystemTime(T0 + 31_000 + 61_000);
    await w.sweep();
    expect(calls()).toHaveLength(3);
    expect(new Set(calls().map((c) => c.headers.get('Idempotency-Key')))).toEqual(new Set([`${id}/PAYOUT`]));
    expect(w.instructions().filter((i) => i.body.paymentId === id)).toHaveLength(1);
    // Delivered: nothing more is pending, and a redelivery is answered as a repeat.
    vi.setSystemTime(T0 + 10 * 3_600_000);
    await w.sweep();
    expect(calls()).toHaveLength(3);
    // A redelivery (signed again now) is answered as a repeat: the rail acts on an instruction once.
    const last = calls()[2]!;
    const headers = {
      'Content-Type': 'application/json',
      'Service-Provider-Signature': await signProviderMessage(RAIL_SECRET, 'rail-instruction', last.body, Date.now()),
    };
    const redelivered = await w.rail(new Request('https://rail.test/rail/instructions', { method: 'POST', body: last.body, headers }));
    expect(await redelivered.json()).toEqual({ received: `${id}/PAYOUT`, repeat: true });
  });
});

describe('the reference rail', () => {
  it('refuses unsigned instructions and shows a person the instructions to settle', async () => {
    const { p, usd, ext } = await setup();
    const w = productionWorld();
    const forged = await w.rail(new Request('https://rail.test/rail/instructions', { method: 'POST', body: '{"id":"x","type":"PAYOUT"}' }));
    expect(forged.status).toBe(401);
    const id = (await transferOut(w, p, usd, ext, 1_000)).body.id as string;
    await w.deliver();
    expect((await w.rail(new Request('https://rail.test/'))).status).toBe(401);
    const page = await w.rail(
      new Request('https://rail.test/', { headers: { Authorization: `Basic ${btoa('operator:test-admin-password')}` } }),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`PAYOUT 1000 USD (${ext}) for ${id}`);
    const form = new URLSearchParams({ key: `${id}/PAYOUT`, status: 'COMPLETED' });
    const settled = await w.rail(
      new Request('https://rail.test/settle', {
        method: 'POST',
        body: form,
        headers: { Authorization: `Basic ${btoa('operator:test-admin-password')}`, 'Sec-Fetch-Site': 'same-origin' },
      }),
    );
    expect(settled.status).toBe(303);
    expect((await read(w, p, id)).body.status).toBe('COMPLETED');
  });
});
