import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currency } from '../../src/common/currencies';
import { api, expectError, failingFields, newPlatform, SANDBOX_CURRENCIES, type TestPlatform } from '../support/api';
import {
  advance,
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

const T0 = Date.parse('2032-01-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

const accountQuote = (from: string, to: string, amount = 10_000, side = 'SENDING') => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: side,
  lockedCurrencyAmount: amount,
});

const umaQuote = (from: string, umaAddress: string, amount = 10_000) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'UMA_ADDRESS', umaAddress },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
});

/** A funded customer (USD 1,000.00) and an external account of theirs ending in `suffix`. */
async function setup(suffix = '123', currencyCode = 'EUR') {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 100_000);
  const ext = await externalAccount(p, customer.id, currencyCode, suffix);
  return { p, customer, usd: accounts.USD!, accounts, ext };
}

describe('POST /quotes', () => {
  it('prices with the numbers GET /exchange-rates shows and creates the transaction PENDING', async () => {
    const { p, customer, usd, ext } = await setup();
    const quote = await createQuote(p, { ...accountQuote(usd, ext), description: 'Invoice 42' });
    const rates = await api('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=10000', { auth: p.auth });
    const rate = rates.body.data[0];
    expect(quote).toEqual({
      id: expect.stringMatching(/^Quote:[0-9a-f-]{36}$/),
      status: 'PENDING',
      createdAt: new Date(T0).toISOString(),
      expiresAt: new Date(T0 + 5 * 60_000).toISOString(),
      source: { sourceType: 'ACCOUNT', accountId: usd, customerId: customer.id },
      destination: { destinationType: 'ACCOUNT', accountId: ext, paymentRail: 'SEPA' },
      sendingCurrency: currency('USD'),
      receivingCurrency: currency('EUR'),
      totalSendingAmount: 10_000,
      totalReceivingAmount: rate.receivingAmount,
      exchangeRate: rate.exchangeRate,
      feesIncluded: rate.feesIncluded,
      transactionId: expect.stringMatching(/^Transaction:[0-9a-f-]{36}$/),
      counterpartyInformation: { FULL_NAME: 'John Doe' },
      rateDetails: rate.rateDetails,
    });
    expect((await api('GET', `/quotes/${quote.id}`, { auth: p.auth })).body).toEqual(quote);
    expect(await tx(p, quote.transactionId)).toEqual({
      id: quote.transactionId,
      status: 'PENDING',
      type: 'OUTGOING',
      source: { sourceType: 'ACCOUNT', accountId: usd, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: ext, currency: 'EUR' },
      customerId: customer.id,
      platformCustomerId: customer.platformCustomerId,
      createdAt: quote.createdAt,
      updatedAt: quote.createdAt,
      description: 'Invoice 42',
      counterpartyInformation: { FULL_NAME: 'John Doe' },
      reconciliationInstructions: { reference: expect.stringMatching(/^TX-[0-9A-F]{12}$/) },
      sentAmount: { amount: 10_000, currency: currency('USD') },
      receivedAmount: { amount: quote.totalReceivingAmount, currency: currency('EUR') },
      exchangeRate: quote.exchangeRate,
      fees: quote.feesIncluded,
      quoteId: quote.id,
      rateDetails: quote.rateDetails,
    });
    // Creating a quote is only a price: no webhook, no money.
    expect(await eventsAbout(p.id, quote.transactionId)).toEqual([]);
    expect(await postings(quote.transactionId)).toEqual([]);
  });

  it('locks the receiving side: the receiver gets exactly the amount', async () => {
    const { p, usd, ext } = await setup();
    const quote = await createQuote(p, accountQuote(usd, ext, 5_000, 'RECEIVING'));
    expect(quote.totalReceivingAmount).toBe(5_000);
    const rates = await api('GET', `/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=${quote.totalSendingAmount}`, {
      auth: p.auth,
    });
    expect(rates.body.data[0].receivingAmount).toBeGreaterThanOrEqual(5_000);
    const less = await api(
      'GET',
      `/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR&sendingAmount=${quote.totalSendingAmount - 1}`,
      { auth: p.auth },
    );
    expect(less.body.data[0].receivingAmount).toBeLessThan(5_000);
  });

  it('refuses invalid requests with the failing fields', async () => {
    const { p, customer, usd, ext, accounts } = await setup();
    const other = await customerWithAccounts(p);
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['source', 'destination', 'lockedCurrencySide', 'lockedCurrencyAmount']],
      [{ ...accountQuote(usd, ext), lockedCurrencyAmount: 0 }, ['lockedCurrencyAmount']],
      [{ ...accountQuote(usd, ext), lockedCurrencyAmount: 1.5 }, ['lockedCurrencyAmount']],
      [{ ...accountQuote(usd, ext), lockedCurrencySide: 'BOTH' }, ['lockedCurrencySide']],
      [{ ...accountQuote(usd, ext), extra: 1 }, ['extra']],
      [{ ...accountQuote(ext, usd) }, ['source.accountId']],
      [{ ...accountQuote(usd, usd) }, ['destination.accountId']],
      [
        { ...accountQuote(usd, ext), source: { sourceType: 'ACCOUNT', accountId: usd, customerId: other.customer.id } },
        ['source.customerId'],
      ],
      [
        { ...accountQuote(usd, ext), destination: { destinationType: 'ACCOUNT', accountId: ext, paymentRail: 'SPEI' } },
        ['destination.paymentRail'],
      ],
      [{ ...accountQuote(usd, ext, 10) }, ['lockedCurrencyAmount']], // does not cover the fees
      [{ ...accountQuote(usd, ext, 200_000_000) }, ['lockedCurrencyAmount']], // above maxAmount
      [umaQuote(usd, 'not-an-address'), ['destination.umaAddress']],
      [
        {
          ...umaQuote(usd, '$success.usd@sandbox.uma.test'),
          destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.uma.test', currency: 'EUR' },
        },
        ['destination.currency'],
      ],
      [
        {
          source: { sourceType: 'REALTIME_FUNDING', currency: 'GBP' },
          destination: { destinationType: 'ACCOUNT', accountId: ext },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 1000,
        },
        ['source.currency'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await api('POST', '/quotes', { auth: p.auth, body });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(body)).toEqual(fields);
    }
    void customer;
    void accounts;
  });

  it('answers 404 for unknown accounts, customers and UMA receivers', async () => {
    const { p, usd, ext } = await setup();
    const q = await setup();
    expectError(
      await api('POST', '/quotes', { auth: p.auth, body: accountQuote(q.usd, ext) }),
      404,
      'REFERENCE_NOT_FOUND',
      'INTERNAL_ACCOUNT_NOT_FOUND',
    );
    expectError(
      await api('POST', '/quotes', { auth: p.auth, body: accountQuote(usd, q.ext) }),
      404,
      'REFERENCE_NOT_FOUND',
      'EXTERNAL_ACCOUNT_NOT_FOUND',
    );
    expectError(
      await api('POST', '/quotes', { auth: p.auth, body: accountQuote(usd, 'ExternalAccount:nope') }),
      404,
      'REFERENCE_NOT_FOUND',
      'EXTERNAL_ACCOUNT_NOT_FOUND',
    );
    expectError(await api('POST', '/quotes', { auth: p.auth, body: umaQuote(usd, '$nobody@sandbox.uma.test') }), 404, 'UMA_NOT_FOUND');
    expectError(await api('POST', '/quotes', { auth: p.auth, body: umaQuote(usd, '$success.usd@elsewhere.test') }), 404, 'UMA_NOT_FOUND');
    const realtime = {
      source: { sourceType: 'REALTIME_FUNDING', customerId: q.customer.id, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1000,
    };
    expectError(await api('POST', '/quotes', { auth: p.auth, body: realtime }), 404, 'USER_NOT_FOUND');
    expectError(await api('GET', '/quotes/Quote:019542f5-b3e7-1d02-0000-000000000006', { auth: p.auth }), 404, 'QUOTE_NOT_FOUND');
    const theirs = await createQuote(q.p, accountQuote(q.usd, q.ext));
    expectError(await api('GET', `/quotes/${theirs.id}`, { auth: p.auth }), 404, 'QUOTE_NOT_FOUND');
    expectError(await execute(p, theirs.id), 404, 'QUOTE_NOT_FOUND');
  });

  it('replays a quote created with an Idempotency-Key', async () => {
    const { p, usd, ext } = await setup();
    const headers = { 'Idempotency-Key': 'quote-once' };
    const a = await api('POST', '/quotes', { auth: p.auth, body: accountQuote(usd, ext), headers });
    const b = await api('POST', '/quotes', { auth: p.auth, body: accountQuote(usd, ext), headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('Idempotent-Replayed')).toBe('true');
    expectError(
      await api('POST', '/quotes', { auth: p.auth, body: accountQuote(usd, ext, 20_000), headers }),
      422,
      'IDEMPOTENCY_KEY_REUSED',
    );
  });
});

interface Row {
  suffix: string;
  /** Status right after execute, then after each advance. */
  timeline: [number, string][];
  failureReason?: string;
  refund?: { status: string; reason: string };
  path: string[];
  postings: string[];
  /** How much of the sent amount the source ends without. */
  debited: boolean;
  events: string[];
  quoteStatus: string;
}

// Sandbox outcomes of quotes with an external account destination, by suffix.
const SUFFIX_TABLE: Row[] = [
  {
    suffix: '002',
    timeline: [[0, 'FAILED']],
    failureReason: 'QUOTE_EXECUTION_FAILED',
    path: ['PENDING', 'FAILED'],
    postings: [],
    debited: false,
    events: ['OUTGOING_PAYMENT.FAILED'],
    quoteStatus: 'FAILED',
  },
  {
    suffix: '003',
    timeline: [
      [0, 'PROCESSING'],
      [300, 'PROCESSING'],
      [59, 'PROCESSING'],
      [1, 'COMPLETED'],
    ],
    path: ['PENDING', 'PROCESSING', 'COMPLETED'],
    postings: ['DEBIT', 'SETTLE'],
    debited: true,
    events: ['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED'],
    quoteStatus: 'COMPLETED',
  },
  {
    suffix: '004',
    timeline: [
      [0, 'PROCESSING'],
      [4, 'PROCESSING'],
      [1, 'FAILED'],
    ],
    failureReason: 'OFFRAMP_FAILED',
    refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' },
    path: ['PENDING', 'PROCESSING', 'FAILED'],
    postings: ['DEBIT', 'REFUND'],
    debited: false,
    events: [
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_PENDING',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ],
    quoteStatus: 'FAILED',
  },
  {
    suffix: '005',
    timeline: [
      [0, 'PROCESSING'],
      [5, 'COMPLETED'],
      [59, 'COMPLETED'],
      [1, 'FAILED'],
    ],
    failureReason: 'OFFRAMP_FAILED',
    refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' },
    path: ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'],
    postings: ['DEBIT', 'SETTLE', 'RETURN', 'REFUND'],
    debited: false,
    events: [
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.COMPLETED',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_PENDING',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ],
    quoteStatus: 'FAILED',
  },
  {
    suffix: '006',
    timeline: [
      [0, 'PROCESSING'],
      [5, 'REFUNDED'],
    ],
    refund: { status: 'COMPLETED', reason: 'USER_CANCELLATION' },
    path: ['PENDING', 'PROCESSING', 'REFUNDED'],
    postings: ['DEBIT', 'REFUND'],
    debited: false,
    events: ['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.REFUND_PENDING', 'OUTGOING_PAYMENT.REFUND_COMPLETED'],
    quoteStatus: 'FAILED',
  },
  {
    suffix: '007',
    timeline: [
      [0, 'PROCESSING'],
      [5, 'FAILED'],
    ],
    failureReason: 'OFFRAMP_FAILED',
    refund: { status: 'FAILED', reason: 'TRANSACTION_FAILED' },
    path: ['PENDING', 'PROCESSING', 'FAILED'],
    postings: ['DEBIT'],
    debited: true,
    events: ['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.FAILED', 'OUTGOING_PAYMENT.REFUND_PENDING', 'OUTGOING_PAYMENT.REFUND_FAILED'],
    quoteStatus: 'FAILED',
  },
  {
    suffix: '123',
    timeline: [
      [0, 'PROCESSING'],
      [4, 'PROCESSING'],
      [1, 'COMPLETED'],
    ],
    path: ['PENDING', 'PROCESSING', 'COMPLETED'],
    postings: ['DEBIT', 'SETTLE'],
    debited: true,
    events: ['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED'],
    quoteStatus: 'COMPLETED',
  },
];

async function runTimeline(p: TestPlatform, transactionId: string, timeline: [number, string][]) {
  for (const [seconds, status] of timeline) {
    if (seconds > 0) await advance(p, seconds);
    expect((await tx(p, transactionId)).status, `after +${seconds}s`).toBe(status);
  }
  return tx(p, transactionId);
}

describe('quote outcomes by the external account suffix', () => {
  it.each(SUFFIX_TABLE)('suffix $suffix ends $path', async (row) => {
    const { p, usd, ext } = await setup(row.suffix);
    const quote = await createQuote(p, accountQuote(usd, ext));
    const res = await execute(p, quote.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: quote.id, status: row.timeline[0]![1] === 'FAILED' ? 'FAILED' : 'PROCESSING' });
    const final = await runTimeline(p, quote.transactionId, row.timeline);
    if (row.failureReason) expect(final.failureReason).toBe(row.failureReason);
    else expect(final).not.toHaveProperty('failureReason');
    if (row.refund) {
      expect(final.refund).toEqual({
        reference: expect.stringMatching(/^RFD-/),
        initiatedAt: expect.any(String),
        ...(row.refund.status === 'COMPLETED' ? { settledAt: final.refund.initiatedAt } : {}),
        ...row.refund,
      });
    } else {
      expect(final).not.toHaveProperty('refund');
    }
    if (row.path.includes('COMPLETED')) expect(final.settledAt).toEqual(expect.any(String));
    else expect(final).not.toHaveProperty('settledAt');
    expect(await statusPath(quote.transactionId)).toEqual(row.path);
    expect(await postings(quote.transactionId)).toEqual(row.postings);
    expect(await balanceOf(p, usd)).toBe(row.debited ? 100_000 - 10_000 : 100_000);
    const types = (await eventsAbout(p.id, quote.transactionId)).map((e) => e.type);
    expect(types).toEqual(row.events);
    expect((await api('GET', `/quotes/${quote.id}`, { auth: p.auth })).body.status).toBe(row.quoteStatus);
    await expectLedgerInvariant(p.id);
    // Nothing changes after the end, however long the wait.
    await advance(p, 7 * 24 * 3600);
    expect((await tx(p, quote.transactionId)).status).toBe(final.status);
    expect(await postings(quote.transactionId)).toEqual(row.postings);
  });
});

describe('quotes to sandbox UMA receivers', () => {
  it.each([
    ['$success.usd', 'USD'],
    ['$success.eur', 'EUR'],
    ['$success.mxn', 'MXN'],
  ])('%s succeeds in %s', async (local, code) => {
    const { p, usd } = await setup();
    const address = `${local}@sandbox.uma.test`;
    const quote = await createQuote(p, umaQuote(usd, address));
    expect(quote.destination).toEqual({ destinationType: 'UMA_ADDRESS', umaAddress: address, currency: code });
    expect(quote.receivingCurrency).toEqual(currency(code));
    expect((await execute(p, quote.id)).status).toBe(200);
    const final = await runTimeline(p, quote.transactionId, [
      [0, 'PROCESSING'],
      [5, 'COMPLETED'],
    ]);
    expect(final).toMatchObject({
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: address, currency: code },
      receiverUmaAddress: address,
      counterpartyInformation: { FULL_NAME: expect.any(String) },
      receivedAmount: { amount: quote.totalReceivingAmount, currency: currency(code) },
    });
    expect(await postings(quote.transactionId)).toEqual(['DEBIT', 'SETTLE']);
    await expectLedgerInvariant(p.id);
  });

  it('$pending.long.usd stays PROCESSING for a long time (completes after a day)', async () => {
    const { p, usd } = await setup();
    const quote = await createQuote(p, umaQuote(usd, '$pending.long.usd@sandbox.uma.test'));
    await execute(p, quote.id);
    const final = await runTimeline(p, quote.transactionId, [
      [0, 'PROCESSING'],
      [360, 'PROCESSING'],
      [6 * 3600, 'PROCESSING'],
      [18 * 3600, 'COMPLETED'],
    ]);
    expect(final).not.toHaveProperty('failureReason');
    await expectLedgerInvariant(p.id);
  });

  it('$fail.compliance.usd is rejected and refunded', async () => {
    const { p, usd } = await setup();
    const quote = await createQuote(p, umaQuote(usd, '$Fail.Compliance.USD@sandbox.uma.test'));
    await execute(p, quote.id);
    const final = await runTimeline(p, quote.transactionId, [
      [0, 'PROCESSING'],
      [5, 'REJECTED'],
    ]);
    expect(final).toMatchObject({ failureReason: 'PAY_REQUEST_FAILED', refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } });
    expect(await statusPath(quote.transactionId)).toEqual(['PENDING', 'PROCESSING', 'REJECTED']);
    expect(await postings(quote.transactionId)).toEqual(['DEBIT', 'REFUND']);
    expect(await balanceOf(p, usd)).toBe(100_000);
    expect((await api('GET', `/quotes/${quote.id}`, { auth: p.auth })).body.status).toBe('FAILED');
    await expectLedgerInvariant(p.id);
  });
});

describe('quotes between internal accounts', () => {
  it('converts into another internal account at once', async () => {
    const { p, customer, usd, accounts } = await setup();
    const quote = await createQuote(p, accountQuote(usd, accounts.EUR!, 10_000));
    expect(quote.counterpartyInformation).toEqual({ FULL_NAME: customer.fullName });
    const res = await execute(p, quote.id);
    expect(res.body.status).toBe('COMPLETED');
    expect(await statusPath(quote.transactionId)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    expect(await balanceOf(p, usd)).toBe(90_000);
    expect(await balanceOf(p, accounts.EUR!)).toBe(quote.totalReceivingAmount);
    expect((await tx(p, quote.transactionId)).settledAt).toBe(new Date(T0).toISOString());
    await expectLedgerInvariant(p.id);
  });

  it("pays from the platform's own account to a customer's", async () => {
    const p = await newPlatform();
    const own = (await api('GET', '/platform/internal-accounts?currency=USD', { auth: p.auth })).body.data[0];
    await fund(p, own.id, 50_000);
    const { customer, accounts } = await customerWithAccounts(p);
    const quote = await createQuote(p, accountQuote(own.id, accounts.MXN!, 10_000));
    expect(quote.source).toEqual({ sourceType: 'ACCOUNT', accountId: own.id });
    await execute(p, quote.id);
    const t = await tx(p, quote.transactionId);
    expect(t).toMatchObject({ status: 'COMPLETED', customerId: p.id, platformCustomerId: p.id });
    expect(await balanceOf(p, accounts.MXN!)).toBe(quote.totalReceivingAmount);
    void customer;
    await expectLedgerInvariant(p.id);
  });
});

describe('POST /quotes/{quoteId}/execute', () => {
  it('refuses an expired quote and ends its transaction EXPIRED with QUOTE_EXPIRED', async () => {
    const { p, usd, ext } = await setup();
    const quote = await createQuote(p, accountQuote(usd, ext));
    vi.setSystemTime(T0 + 5 * 60_000);
    expectError(await execute(p, quote.id), 409, 'CONFLICT', 'QUOTE_EXPIRED');
    expect(await tx(p, quote.transactionId)).toMatchObject({ status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED' });
    expect((await api('GET', `/quotes/${quote.id}`, { auth: p.auth })).body.status).toBe('EXPIRED');
    expect((await eventsAbout(p.id, quote.transactionId)).map((e) => e.type)).toEqual(['OUTGOING_PAYMENT.EXPIRED']);
    expect(await balanceOf(p, usd)).toBe(100_000);
    expectError(await execute(p, quote.id), 409, 'CONFLICT', 'QUOTE_NOT_PENDING');
    await expectLedgerInvariant(p.id);
  });

  it('expires a quote on time without any call (due transition at expiresAt)', async () => {
    const { p, usd, ext } = await setup();
    const quote = await createQuote(p, accountQuote(usd, ext));
    await advance(p, 299);
    expect((await tx(p, quote.transactionId)).status).toBe('PENDING');
    await advance(p, 1);
    expect(await tx(p, quote.transactionId)).toMatchObject({ status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED' });
    expect(await statusPath(quote.transactionId)).toEqual(['PENDING', 'EXPIRED']);
  });

  it('refuses a shortfall with 400 INVALID_AMOUNT (INSUFFICIENT_FUNDS) and executes once funded', async () => {
    const { p, usd, ext } = await setup();
    const quote = await createQuote(p, accountQuote(usd, ext, 150_000));
    const refused = expectError(await execute(p, quote.id), 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    // It names the account short of funds, the quote's source.
    expect(refused.message).toContain(usd);
    expect((await tx(p, quote.transactionId)).status).toBe('PENDING');
    await fund(p, usd, 50_000);
    expect((await execute(p, quote.id)).status).toBe(200);
    expect(await balanceOf(p, usd)).toBe(0);
    await expectLedgerInvariant(p.id);
  });

  it('immediatelyExecute short of funds: 400 INVALID_AMOUNT (INSUFFICIENT_FUNDS), the quote kept PENDING and nothing moved', async () => {
    const { p, usd, ext } = await setup();
    const res = await api('POST', '/quotes', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'short' },
      body: { ...accountQuote(usd, ext, 200_000), immediatelyExecute: true },
    });
    expectError(res, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    const list = await api('GET', `/quotes?status=PENDING`, { auth: p.auth });
    expect(list.body.data).toHaveLength(1);
    expect(await postings(list.body.data[0].transactionId)).toEqual([]);
    expect(await balanceOf(p, usd)).toBe(100_000);
    // The answer committed with the quote: the same key replays it.
    const again = await api('POST', '/quotes', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'short' },
      body: { ...accountQuote(usd, ext, 200_000), immediatelyExecute: true },
    });
    expectError(again, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    await expectLedgerInvariant(p.id);
  });

  it('executes at creation with immediatelyExecute', async () => {
    const { p, usd, ext } = await setup();
    const quote = await createQuote(p, { ...accountQuote(usd, ext), immediatelyExecute: true });
    expect(quote.status).toBe('PROCESSING');
    expect(await balanceOf(p, usd)).toBe(90_000);
    await expectLedgerInvariant(p.id);
  });
});

describe('real-time funding', () => {
  async function realtime(code = 'USD') {
    const { p, customer, ext } = await setup();
    const quote = await createQuote(p, {
      source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: code },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 10_000,
    });
    return { p, customer, ext, quote };
  }

  it('gives bank and Spark payment instructions', async () => {
    const { p, quote, customer } = await realtime();
    expect(quote.source).toEqual({ sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'USD' });
    expect(quote.paymentInstructions).toEqual([
      {
        instructionsNotes: expect.stringContaining('/sandbox/send'),
        accountOrWalletInfo: {
          accountType: 'USD_ACCOUNT',
          paymentRails: ['ACH', 'WIRE', 'RTP'],
          accountNumber: expect.stringMatching(/^[0-9]{12}$/),
          routingNumber: '021000021',
          bankName: 'Sandbox Bank',
          reference: expect.stringMatching(/^QUOTE-[0-9A-F]{12}$/),
        },
      },
      {
        instructionsNotes: expect.stringContaining('"BTC"'),
        accountOrWalletInfo: {
          accountType: 'SPARK_WALLET',
          assetType: 'BTC',
          address: expect.stringMatching(/^spark1/),
          invoice: expect.stringMatching(/^lnbcrt1p/),
        },
      },
    ]);
    const reference = quote.paymentInstructions[0].accountOrWalletInfo.reference;
    expect(await tx(p, quote.transactionId)).toMatchObject({
      status: 'PENDING',
      source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'USD' },
      paymentInstructions: quote.paymentInstructions,
      reconciliationInstructions: { reference },
    });
  });

  it('POST /sandbox/send funds it and the payment follows the destination suffix', async () => {
    const { p, quote } = await realtime();
    const res = await api('POST', '/sandbox/send', {
      auth: p.auth,
      body: { quoteId: quote.id, currencyCode: 'USD', currencyAmount: quote.totalSendingAmount },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: quote.transactionId, type: 'OUTGOING', status: 'PROCESSING', quoteId: quote.id });
    await advance(p, 5);
    expect((await tx(p, quote.transactionId)).status).toBe('COMPLETED');
    expect(await postings(quote.transactionId)).toEqual(['FUNDING', 'SETTLE']);
    expectError(
      await api('POST', '/sandbox/send', { auth: p.auth, body: { quoteId: quote.id, currencyCode: 'USD' } }),
      409,
      'CONFLICT',
      'QUOTE_NOT_PENDING',
    );
    await expectLedgerInvariant(p.id);
  });

  it('accepts the Lightning invoice (BTC) and checks the currency and amount paid', async () => {
    const { p, quote } = await realtime();
    const send = (body: Record<string, unknown>) => api('POST', '/sandbox/send', { auth: p.auth, body: { quoteId: quote.id, ...body } });
    let res = await send({ currencyCode: 'EUR' });
    expectError(res, 400, 'INVALID_INPUT');
    expect(failingFields(res)).toEqual(['currencyCode']);
    res = await send({ currencyCode: 'USD', currencyAmount: quote.totalSendingAmount - 1 });
    expect(failingFields(res)).toEqual(['currencyAmount']);
    expectError(
      await api('POST', `/quotes/${quote.id}/execute`, { auth: p.auth, headers: { 'Idempotency-Key': 'x' } }),
      400,
      'INVALID_INPUT',
      'QUOTE_REQUIRES_FUNDING',
    );
    expect((await send({ currencyCode: 'BTC' })).status).toBe(200);
    expect((await tx(p, quote.transactionId)).status).toBe('PROCESSING');
  });

  it('refuses to send for an account-funded or expired quote', async () => {
    const { p, usd, ext } = await setup();
    const quote = await createQuote(p, accountQuote(usd, ext));
    expectError(
      await api('POST', '/sandbox/send', { auth: p.auth, body: { quoteId: quote.id, currencyCode: 'USD' } }),
      400,
      'INVALID_INPUT',
      'QUOTE_NOT_REALTIME_FUNDED',
    );
    const r = await realtime();
    vi.setSystemTime(T0 + 10 * 60_000);
    expectError(
      await api('POST', '/sandbox/send', { auth: r.p.auth, body: { quoteId: r.quote.id, currencyCode: 'USD' } }),
      409,
      'CONFLICT',
      'QUOTE_EXPIRED',
    );
    expect(await tx(r.p, r.quote.transactionId)).toMatchObject({ status: 'EXPIRED', failureReason: 'QUOTE_EXPIRED' });
    expectError(
      await api('POST', '/sandbox/send', { auth: p.auth, body: { quoteId: 'Quote:nope', currencyCode: 'USD' } }),
      404,
      'QUOTE_NOT_FOUND',
    );
  });

  it('carries cryptoNetwork for crypto funding: required for USDC, one of its networks, refused for fiat', async () => {
    const p = await newPlatform({
      supportedCurrencies: [
        ...SANDBOX_CURRENCIES,
        ...['USDC', 'BTC'].map((currencyCode) => ({ ...SANDBOX_CURRENCIES[0]!, currencyCode, maxAmount: 10_000_000_000 })),
      ],
    });
    const { customer } = await customerWithAccounts(p);
    const ext = await externalAccount(p, customer.id, 'EUR', '123');
    const body = (source: Record<string, unknown>) => ({
      source: { sourceType: 'REALTIME_FUNDING', customerId: customer.id, ...source },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 10_000,
    });
    const usdc = await createQuote(p, body({ currency: 'USDC', cryptoNetwork: 'SOLANA' }));
    expect(usdc.source).toEqual({ sourceType: 'REALTIME_FUNDING', customerId: customer.id, currency: 'USDC', cryptoNetwork: 'SOLANA' });
    expect(usdc.paymentInstructions.map((i: any) => i.accountOrWalletInfo.accountType)).toContain('SOLANA_WALLET');
    expect((await api('GET', `/quotes/${usdc.id}`, { auth: p.auth })).body.source.cryptoNetwork).toBe('SOLANA');
    expect((await createQuote(p, body({ currency: 'BTC', cryptoNetwork: 'LIGHTNING' }))).source.cryptoNetwork).toBe('LIGHTNING');
    expect((await createQuote(p, body({ currency: 'BTC' }))).source).not.toHaveProperty('cryptoNetwork');
    for (const source of [
      { currency: 'USDC' },
      { currency: 'USDC', cryptoNetwork: 'ETHEREUM' },
      { currency: 'USD', cryptoNetwork: 'SOLANA' },
      { currency: 'USDC', cryptoNetwork: 'DOGE' },
    ]) {
      const res = await api('POST', '/quotes', { auth: p.auth, body: body(source) });
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), JSON.stringify(source)).toEqual(['source.cryptoNetwork']);
    }
  });

  it("refunds a failed real-time payment to the payer, outside the platform's accounts", async () => {
    const p = await newPlatform();
    const { customer } = await customerWithAccounts(p);
    const ext = await externalAccount(p, customer.id, 'EUR', '004');
    const quote = await createQuote(p, {
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: ext },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 10_000,
    });
    expect(quote.source).toEqual({ sourceType: 'REALTIME_FUNDING', currency: 'USD' });
    await api('POST', '/sandbox/send', { auth: p.auth, body: { quoteId: quote.id, currencyCode: 'USD' } });
    await advance(p, 5);
    expect(await tx(p, quote.transactionId)).toMatchObject({ status: 'FAILED', customerId: p.id, refund: { status: 'COMPLETED' } });
    expect(await postings(quote.transactionId)).toEqual(['FUNDING', 'REFUND']);
    await expectLedgerInvariant(p.id);
  });
});
