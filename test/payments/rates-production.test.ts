import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api, expectError, newPlatform, workerApi, type CallOptions } from '../support/api';
import { newAgent, policy } from '../support/agents';
import { customerWithAccounts, externalAccount, fund } from '../support/payments';
import { RAIL_SECRET, RAIL_URL } from '../support/providers';

const T0 = Date.parse('2032-05-01T12:00:00.000Z');
const FIVE_MINUTES = 5 * 60_000;

/**
 * One call through the Worker in production mode, with `RATES_URL` set when given, and a payment rail (payments
 * to external accounts need one; the rail itself is not reached here: instructions go out from the queue).
 */
const prod = (method: string, path: string, ratesUrl: string | undefined, opts: CallOptions = {}) =>
  workerApi(method, path, { SERVICE_ENV: 'production', RAIL_URL, RAIL_SECRET, ...(ratesUrl ? { RATES_URL: ratesUrl } : {}) }, opts);

/** Units per 1 USD, far from the sandbox table (1 EUR = 2 USD there is about 1.08), so the source shows. */
const PER_USD: Record<string, number> = {
  EUR: 0.5,
  GBP: 0.4,
  CAD: 1.25,
  MXN: 20,
  BRL: 5,
  INR: 80,
  NGN: 1500,
  PHP: 50,
  KES: 130,
  JPY: 150,
  BTC: 0.00001,
  USDC: 1,
};

/** A rate source at a fresh URL (the cache is per URL), faked at `fetch`; `answer` plays the source. */
function fakeSource(answer: () => Promise<Response> | Response = () => Response.json({ base: 'USD', rates: PER_USD })) {
  const url = `https://rates.test/latest?key=${crypto.randomUUID()}`;
  const calls: string[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (target !== url) return real(input, init);
    calls.push(target);
    expect(init?.signal).toBeInstanceOf(AbortSignal); // bounded by a timeout
    return answer();
  });
  return { url, calls };
}

beforeEach(() => vi.setSystemTime(T0));
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const eurRate = (p: { auth: string }, url: string | undefined, query = 'sourceCurrency=USD&destinationCurrency=EUR') =>
  prod('GET', `/exchange-rates?${query}`, url, { auth: p.auth });

describe('production exchange rates come from RATES_URL, never the sandbox table', () => {
  it('prices GET /exchange-rates and quotes from the source, identically', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000); // funding is sandbox-only; pricing is what is tested here
    const ext = await externalAccount(p, customer.id, 'EUR', '123');
    const source = fakeSource();

    const listed = await eurRate(p, source.url);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    // Mid-market 0.5 EUR per USD, less the 25 bps spread; the snapshot holds 5 minutes from its fetch.
    expect(listed.body.data[0]).toMatchObject({
      exchangeRate: 0.49875,
      updatedAt: new Date(T0).toISOString(),
      expiresAt: new Date(T0 + FIVE_MINUTES).toISOString(),
    });
    const quote = await prod('POST', '/quotes', source.url, {
      auth: p.auth,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
        destination: { destinationType: 'ACCOUNT', accountId: ext },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
      },
    });
    expect(quote.status, JSON.stringify(quote.body)).toBe(201);
    expect(quote.body).toMatchObject({
      exchangeRate: 0.49875,
      totalReceivingAmount: listed.body.data[0].receivingAmount,
      feesIncluded: listed.body.data[0].feesIncluded,
    });
    // 10000 cents − 10 fixed − 20 variable = 9970 cents × 0.49875 = 4972 euro cents, less EUR 0.025 (3 cents).
    expect(quote.body.totalReceivingAmount).toBe(4_969);
    expect(source.calls).toHaveLength(1); // one fetch served both
  });

  it('without RATES_URL, quote and rate endpoints answer 503 RATES_UNAVAILABLE and nothing is created', async () => {
    const p = await newPlatform();
    const { customer, accounts } = await customerWithAccounts(p);
    await fund(p, accounts.USD!, 100_000);
    const ext = await externalAccount(p, customer.id, 'EUR', '123');
    const spy = vi.spyOn(globalThis, 'fetch');
    const listed = await eurRate(p, undefined);
    expectError(listed, 503, 'RATES_UNAVAILABLE');
    expect(listed.body.message).toBe('No exchange-rate source is configured');
    const quote = await prod('POST', '/quotes', undefined, {
      auth: p.auth,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: accounts.USD },
        destination: { destinationType: 'ACCOUNT', accountId: ext },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 10_000,
      },
    });
    expectError(quote, 503, 'RATES_UNAVAILABLE');
    expect(spy).not.toHaveBeenCalled();
    expect((await api('GET', '/transactions', { auth: p.auth })).body.data).toEqual([]);
    // The sandbox keeps its own table.
    expect((await api('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=EUR', { auth: p.auth })).status).toBe(200);
  });

  it.each([
    ['an error status', () => new Response('upstream down', { status: 502 })],
    ['a network failure', () => Promise.reject(new TypeError('connection refused'))],
    ['a body that is not JSON', () => new Response('<html>', { status: 200 })],
    ['another base currency', () => Response.json({ base: 'EUR', rates: PER_USD })],
    ['a rate that is not a positive number', () => Response.json({ base: 'USD', rates: { ...PER_USD, MXN: 0 } })],
  ])('a source answering with %s is 503 RATES_UNAVAILABLE, and the next request tries again', async (_, answer) => {
    const p = await newPlatform();
    const source = fakeSource(answer);
    const res = await eurRate(p, source.url);
    expectError(res, 503, 'RATES_UNAVAILABLE');
    expect(JSON.stringify(res.body)).not.toContain('rates.test'); // the URL may carry a key
    expectError(await eurRate(p, source.url), 503, 'RATES_UNAVAILABLE');
    expect(source.calls).toHaveLength(2);
  });

  it('a currency the source lacks is 503 for what needs it only', async () => {
    const p = await newPlatform();
    const { MXN: _, ...withoutMxn } = PER_USD;
    const source = fakeSource(() => Response.json({ base: 'USD', rates: withoutMxn }));
    expect((await eurRate(p, source.url)).status).toBe(200);
    const mxn = await eurRate(p, source.url, 'sourceCurrency=USD&destinationCurrency=MXN');
    expectError(mxn, 503, 'RATES_UNAVAILABLE');
    expect(mxn.body.message).toContain('MXN');
  });

  it('a source that does not answer in time is 503 (the fetch is bounded)', async () => {
    const p = await newPlatform();
    const source = fakeSource(() => new Promise<Response>(() => {}));
    vi.useRealTimers();
    const started = Date.now();
    expectError(await eurRate(p, source.url), 503, 'RATES_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('caches a snapshot about 5 minutes per isolate, and concurrent requests share one fetch', async () => {
    const p = await newPlatform();
    let perUsd = 0.5;
    const source = fakeSource(() => Response.json({ base: 'USD', rates: { ...PER_USD, EUR: perUsd } }));
    const first = await Promise.all([1, 2, 3, 4, 5].map(() => eurRate(p, source.url)));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(source.calls).toHaveLength(1);
    perUsd = 0.25;
    vi.setSystemTime(T0 + FIVE_MINUTES - 1);
    expect((await eurRate(p, source.url)).body.data[0].exchangeRate).toBe(0.49875);
    expect(source.calls).toHaveLength(1);
    vi.setSystemTime(T0 + FIVE_MINUTES);
    expect((await eurRate(p, source.url)).body.data[0].exchangeRate).toBe(0.249375);
    expect(source.calls).toHaveLength(2);
  });

  it('requests arriving while a fetch is in flight share its failure too', async () => {
    const p = await newPlatform();
    // The source takes a while, so every request arrives while its fetch is in flight.
    const source = fakeSource(() => new Promise((resolve) => setTimeout(() => resolve(new Response('busy', { status: 503 })), 300)));
    vi.useRealTimers();
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => eurRate(p, source.url)));
    for (const res of all) expectError(res, 503, 'RATES_UNAVAILABLE');
    expect(source.calls).toHaveLength(1);
  });

  it('agent policies convert with the same source (and need none for their own currency)', async () => {
    const a = await newAgent({ policy: policy({ spendingLimits: { currency: 'EUR', perTransactionLimit: 1_000 } }) });
    const usd = a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'USD').id;
    const eur = a.accounts.find((x) => x.type === 'INTERNAL_FIAT' && x.balance.currency.code === 'EUR').id;
    await fund(a.p, usd, 100_000);
    await fund(a.p, eur, 100_000);
    const usdBank = await externalAccount(a.p, a.customerId, 'USD', '789');
    const eurBank = await externalAccount(a.p, a.customerId, 'EUR', '789');
    const out = (from: string, to: string, amount: number, url: string | undefined) =>
      prod('POST', '/agents/me/transfer-out', url, {
        auth: a.bearer,
        body: { source: { accountId: from }, destination: { accountId: to }, amount },
      });
    // USD 6.00 is EUR 3.00 at the source (EUR 5.56 on the sandbox table): within the EUR 10.00 limit...
    const source = fakeSource();
    expect((await out(usd, usdBank, 600, source.url)).status).toBe(201);
    // ...and USD 21.00 is EUR 10.50 at the source: refused (the sandbox table would say EUR 19.44: refused too).
    expectError(await out(usd, usdBank, 2_100, source.url), 403, 'FORBIDDEN');
    // USD 19.00 is EUR 9.50 at the source: allowed, though the sandbox table would refuse it (EUR 17.59).
    expect((await out(usd, usdBank, 1_900, source.url)).status).toBe(201);
    // Without a source, a conversion is 503; an amount already in the policy currency needs none.
    expectError(await out(usd, usdBank, 100, undefined), 503, 'RATES_UNAVAILABLE');
    expect((await out(eur, eurBank, 100, undefined)).status).toBe(201);
  });
});
