import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { currency } from '../../src/common/currencies';
import { env } from 'cloudflare:test';
import { api, basic, expectError, failingFields, newPlatform, tokenWith, type TestPlatform } from '../support/api';
import {
  advance,
  balanceOf,
  customerWithAccounts,
  eventsAbout,
  expectLedgerInvariant,
  externalAccount,
  fund,
  postings,
  statusPath,
  transfer,
  tx,
} from '../support/payments';

const T0 = Date.parse('2032-03-10T10:00:00.000Z');
beforeEach(() => vi.setSystemTime(T0));
afterEach(() => vi.useRealTimers());

async function setup(suffix: string) {
  const p = await newPlatform();
  const { customer, accounts } = await customerWithAccounts(p);
  await fund(p, accounts.USD!, 50_000);
  const ext = await externalAccount(p, customer.id, 'USD', suffix);
  return { p, customer, usd: accounts.USD!, accounts, ext };
}

async function timeline(p: TestPlatform, id: string, steps: [number, string][]) {
  for (const [seconds, status] of steps) {
    if (seconds > 0) await advance(p, seconds);
    expect((await tx(p, id)).status, `after +${seconds}s`).toBe(status);
  }
  return tx(p, id);
}

interface Row {
  suffix: string;
  steps: [number, string][];
  failureReason?: string;
  path: string[];
  postings: string[];
  /** Balance of the internal account at the end (it starts at 50,000; 12,550 moves). */
  balance: number;
  events: string[];
}

// Sandbox outcomes of transfer in and transfer out, by suffix.
const OUT: Row[] = [
  {
    suffix: '002',
    steps: [[0, 'FAILED']],
    failureReason: 'OFFRAMP_FAILED',
    path: ['FAILED'],
    postings: [],
    balance: 50_000,
    events: ['OUTGOING_PAYMENT.FAILED'],
  },
  {
    suffix: '003',
    steps: [[0, 'FAILED']],
    failureReason: 'OFFRAMP_FAILED',
    path: ['FAILED'],
    postings: [],
    balance: 50_000,
    events: ['OUTGOING_PAYMENT.FAILED'],
  },
  {
    suffix: '004',
    steps: [
      [0, 'PROCESSING'],
      [5, 'REJECTED'],
    ],
    failureReason: 'OFFRAMP_FAILED',
    path: ['PROCESSING', 'REJECTED'],
    postings: ['DEBIT', 'REFUND'],
    balance: 50_000,
    events: [
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_PENDING',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ],
  },
  {
    suffix: '005',
    steps: [
      [0, 'PROCESSING'],
      [29, 'PROCESSING'],
      [1, 'FAILED'],
    ],
    failureReason: 'OFFRAMP_FAILED',
    path: ['PROCESSING', 'FAILED'],
    postings: ['DEBIT', 'REFUND'],
    balance: 50_000,
    events: [
      'OUTGOING_PAYMENT.PROCESSING',
      'OUTGOING_PAYMENT.FAILED',
      'OUTGOING_PAYMENT.REFUND_PENDING',
      'OUTGOING_PAYMENT.REFUND_COMPLETED',
    ],
  },
  {
    suffix: '321',
    steps: [[0, 'COMPLETED']],
    path: ['PROCESSING', 'COMPLETED'],
    postings: ['DEBIT', 'SETTLE'],
    balance: 50_000 - 12_550,
    events: ['OUTGOING_PAYMENT.PROCESSING', 'OUTGOING_PAYMENT.COMPLETED'],
  },
];

const IN: Row[] = [
  {
    suffix: '002',
    steps: [[0, 'FAILED']],
    failureReason: 'PAY_REQUEST_FAILED',
    path: ['FAILED'],
    postings: [],
    balance: 50_000,
    events: ['INCOMING_PAYMENT.FAILED'],
  },
  {
    suffix: '003',
    steps: [[0, 'FAILED']],
    failureReason: 'PAY_REQUEST_FAILED',
    path: ['FAILED'],
    postings: [],
    balance: 50_000,
    events: ['INCOMING_PAYMENT.FAILED'],
  },
  {
    suffix: '004',
    steps: [
      [0, 'PENDING'],
      [5, 'REJECTED'],
    ],
    failureReason: 'PAY_REQUEST_FAILED',
    path: ['PENDING', 'REJECTED'],
    postings: [],
    balance: 50_000,
    events: ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED'],
  },
  {
    suffix: '005',
    steps: [
      [0, 'PENDING'],
      [29, 'PENDING'],
      [1, 'FAILED'],
    ],
    failureReason: 'PAY_REQUEST_FAILED',
    path: ['PENDING', 'FAILED'],
    postings: [],
    balance: 50_000,
    events: ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.FAILED'],
  },
  {
    suffix: '321',
    steps: [[0, 'COMPLETED']],
    path: ['PENDING', 'COMPLETED'],
    postings: ['CREDIT'],
    balance: 50_000 + 12_550,
    events: ['INCOMING_PAYMENT.PENDING', 'INCOMING_PAYMENT.COMPLETED'],
  },
];

describe('POST /transfer-out outcomes', () => {
  it.each(OUT)('suffix $suffix', async (row) => {
    const { p, customer, usd, ext } = await setup(row.suffix);
    const res = await transfer(p, 'out', usd, ext, 12_550);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^Transaction:/),
      status: row.steps[0]![1],
      type: 'OUTGOING',
      source: { sourceType: 'ACCOUNT', accountId: usd, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: ext, currency: 'USD' },
      customerId: customer.id,
      platformCustomerId: customer.platformCustomerId,
      sentAmount: { amount: 12_550, currency: currency('USD') },
      receivedAmount: { amount: 12_550, currency: currency('USD') },
      fees: 0,
      counterpartyInformation: { FULL_NAME: 'John Doe' },
      reconciliationInstructions: { reference: expect.stringMatching(/^TX-/) },
    });
    const final = await timeline(p, res.body.id, row.steps);
    if (row.failureReason) expect(final.failureReason).toBe(row.failureReason);
    else expect(final).not.toHaveProperty('failureReason');
    if (row.postings.includes('REFUND')) expect(final.refund).toMatchObject({ status: 'COMPLETED', reason: 'TRANSACTION_FAILED' });
    expect(await statusPath(res.body.id)).toEqual(row.path);
    expect(await postings(res.body.id)).toEqual(row.postings);
    expect(await balanceOf(p, usd)).toBe(row.balance);
    expect((await eventsAbout(p.id, res.body.id)).map((e) => e.type)).toEqual(row.events);
    await expectLedgerInvariant(p.id);
  });
});

describe('POST /transfer-in outcomes', () => {
  it.each(IN)('suffix $suffix', async (row) => {
    const { p, usd, ext } = await setup(row.suffix);
    const res = await transfer(p, 'in', ext, usd, 12_550);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      status: row.steps[0]![1],
      type: 'INCOMING',
      source: { sourceType: 'ACCOUNT', accountId: ext, currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: usd, currency: 'USD' },
      receivedAmount: { amount: 12_550, currency: currency('USD') },
      fees: 0,
    });
    expect(res.body).not.toHaveProperty('sentAmount');
    const final = await timeline(p, res.body.id, row.steps);
    if (row.failureReason) expect(final.failureReason).toBe(row.failureReason);
    else expect(final).not.toHaveProperty('failureReason');
    expect(await statusPath(res.body.id)).toEqual(row.path);
    expect(await postings(res.body.id)).toEqual(row.postings);
    expect(await balanceOf(p, usd)).toBe(row.balance);
    expect((await eventsAbout(p.id, res.body.id)).map((e) => e.type)).toEqual(row.events);
    await expectLedgerInvariant(p.id);
  });
});

describe('transfer bodies (reference required list: source and destination)', () => {
  it('documents amount as optional, as the reference does, and refuses a transfer without one, naming it with the other fields', async () => {
    const { p, usd, ext } = await setup('321');
    const schemas = (await api('GET', '/openapi.json')).body.components.schemas;
    for (const name of ['TransferInRequest', 'TransferOutRequest']) expect(schemas[name].required, name).toEqual(['source', 'destination']);
    for (const [path, body] of [
      ['/transfer-out', { source: { accountId: usd }, destination: { accountId: ext } }],
      ['/transfer-in', { source: { accountId: ext }, destination: { accountId: usd } }],
    ] as const) {
      const res = await api('POST', path, { auth: p.auth, headers: { 'Idempotency-Key': `no-amount-${path}` }, body });
      const error = expectError(res, 400, 'INVALID_INPUT');
      expect(error.details.fields).toEqual([{ field: 'amount', message: expect.stringMatching(/^Required: .*absent amount/) }]);
    }
    const both = await api('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'no-amount-2' },
      body: { source: { accountId: usd }, destination: {} },
    });
    expect(failingFields(both)).toEqual(['destination.accountId', 'amount']);
    expect((await api('GET', '/transactions', { auth: p.auth })).body.data).toEqual([]);
    expect(await balanceOf(p, usd)).toBe(50_000);
  });
});

describe('transfer rules', () => {
  it('refuses a real shortfall with 400 INVALID_AMOUNT (INSUFFICIENT_FUNDS) and records nothing', async () => {
    const { p, usd, ext } = await setup('321');
    const res = await transfer(p, 'out', usd, ext, 50_001);
    expectError(res, 400, 'INVALID_AMOUNT', 'INSUFFICIENT_FUNDS');
    expect((await api('GET', '/transactions', { auth: p.auth })).body.data).toEqual([]);
    expect(await balanceOf(p, usd)).toBe(50_000);
    await expectLedgerInvariant(p.id);
  });

  it('moves one currency between accounts of the same holder', async () => {
    const { p, customer, usd, accounts, ext } = await setup('321');
    const other = await customerWithAccounts(p);
    const eur = await externalAccount(p, customer.id, 'EUR', '321');
    const platformExt = await externalAccount(p, undefined, 'USD', '321');
    const cases: [string, string, string, string][] = [
      ['out', usd, eur, 'destination.accountId'], // currency
      ['out', other.accounts.USD!, ext, 'destination.accountId'], // holder
      ['in', ext, other.accounts.USD!, 'source.accountId'],
      ['out', usd, platformExt, 'destination.accountId'],
      ['out', accounts.wallet!, ext, 'source.accountId'], // embedded wallets pay out by signed quote only
    ];
    for (const [dir, from, to, field] of cases) {
      const res = await transfer(p, dir as 'in' | 'out', from, to, 100);
      expectError(res, 400, 'INVALID_INPUT');
      expect(failingFields(res), `${dir} ${from} -> ${to}`).toEqual([field]);
    }
    let res = await api('POST', '/transfer-out', {
      auth: p.auth,
      headers: { 'Idempotency-Key': 'v' },
      body: { source: { accountId: usd }, destination: {}, amount: -1 },
    });
    expect(failingFields(res)).toEqual(['destination.accountId', 'amount']);
    res = await transfer(p, 'out', ext, usd, 100);
    expectError(res, 404, 'REFERENCE_NOT_FOUND', 'INTERNAL_ACCOUNT_NOT_FOUND');
    res = await transfer(p, 'in', usd, ext, 100);
    expectError(res, 404, 'REFERENCE_NOT_FOUND', 'INTERNAL_ACCOUNT_NOT_FOUND');
  });

  it("moves the platform's own money to and from its own external accounts", async () => {
    const p = await newPlatform();
    const own = (await api('GET', '/platform/internal-accounts?currency=USD', { auth: p.auth })).body.data[0].id;
    const ext = await externalAccount(p, undefined, 'USD', '888');
    const incoming = await transfer(p, 'in', ext, own, 10_000);
    expect(incoming.body).toMatchObject({ status: 'COMPLETED', customerId: p.id, platformCustomerId: p.id });
    const outgoing = await transfer(p, 'out', own, ext, 4_000);
    expect(outgoing.body.status).toBe('COMPLETED');
    expect(await balanceOf(p, own)).toBe(6_000);
    await expectLedgerInvariant(p.id);
  });

  it('replays a transfer for the same key and refuses the key for another body', async () => {
    const { p, usd, ext } = await setup('321');
    const a = await transfer(p, 'out', usd, ext, 1_000, 'tr-1');
    const b = await transfer(p, 'out', usd, ext, 1_000, 'tr-1');
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('Idempotent-Replayed')).toBe('true');
    expectError(await transfer(p, 'out', usd, ext, 2_000, 'tr-1'), 422, 'IDEMPOTENCY_KEY_REUSED');
    const many = await Promise.all(Array.from({ length: 10 }, () => transfer(p, 'out', usd, ext, 1_000, 'tr-2')));
    expect(many.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(await balanceOf(p, usd)).toBe(48_000);
    await expectLedgerInvariant(p.id);
  });

  it('refuses closed or deleted accounts', async () => {
    const { p, usd, ext } = await setup('321');
    expect((await api('DELETE', `/customers/external-accounts/${ext}`, { auth: p.auth })).status).toBe(204);
    expectError(await transfer(p, 'out', usd, ext, 100), 404, 'REFERENCE_NOT_FOUND', 'EXTERNAL_ACCOUNT_NOT_FOUND');
  });
});

// The key's claim rides on the authentication round trip, filtered on the platform the credentials
// authenticate with TRANSACT; its times are the platform's (sandbox clock included).
describe('the Idempotency-Key of a transfer', () => {
  const keyRows = async (platformId: string) =>
    (await env.DB.prepare('SELECT count(*) AS n FROM idempotency_keys WHERE platform_id = ?').bind(platformId).first<{ n: number }>())!.n;
  const send = (auth: string, key: string, body: unknown) =>
    api('POST', '/transfer-out', { auth, headers: { 'Idempotency-Key': key }, body });

  it('is not claimed by a request refused for its credentials, permission, platform or input', async () => {
    const { p, usd, ext } = await setup('001');
    const other = await newPlatform();
    const body = { source: { accountId: usd }, destination: { accountId: ext }, amount: 500 };
    const key = 'refused-first';
    expectError(await send(basic(p.clientId, `${p.clientSecret}x`), key, body), 401, 'UNAUTHORIZED');
    expectError(await send(await tokenWith(p, ['VIEW', 'MANAGE']), key, body), 403, 'FORBIDDEN');
    expectError(await send(p.auth, key, { ...body, amount: -5 }), 400, 'INVALID_INPUT');
    expectError(await send(other.auth, key, body), 404);
    expect(await keyRows(p.id)).toBe(0);

    const first = await send(p.auth, key, body);
    expect(first.status).toBe(201);
    const again = await send(p.auth, key, body);
    expect(again.status).toBe(201);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(await balanceOf(p, usd)).toBe(49_500);
  });

  it('lives 24 hours of the platform’s clock: replayed within them, a new transfer after', async () => {
    const { p, usd, ext } = await setup('001');
    await advance(p, 10 * 3600);
    const first = await transfer(p, 'out', usd, ext, 500, 'day-key');
    expect(first.status).toBe(201);
    await advance(p, 20 * 3600);
    const within = await transfer(p, 'out', usd, ext, 500, 'day-key');
    expect(within.body.id).toBe(first.body.id);
    await advance(p, 5 * 3600);
    const after = await transfer(p, 'out', usd, ext, 500, 'day-key');
    expect(after.status).toBe(201);
    expect(after.body.id).not.toBe(first.body.id);
    expect(await balanceOf(p, usd)).toBe(49_000);
    await expectLedgerInvariant(p.id);
  });
});
