import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currency, currencyInfo, SUPPORTED_CURRENCY_CODES } from '../../src/common/currencies';
import { computeExchange, RATE_WINDOW_MS } from '../../src/payments/rates';
import { rateWindow, sandboxRates } from '../../src/payments/rates-sandbox';
import { api, expectError, failingFields, newPlatform, SANDBOX_CURRENCIES, tokenWith } from '../support/api';

const standard = { id: 'Platform:a', isRegulatedFinancialInstitution: false };
const regulated = { id: 'Platform:b', isRegulatedFinancialInstitution: true };
const T = Date.parse('2031-06-01T09:00:00.000Z'); // a window boundary

describe('computeExchange', () => {
  it('applies the documented formula (USD to USDC, a pegged pair)', () => {
    const x = computeExchange(
      standard,
      { sendingCurrency: 'USD', receivingCurrency: 'USDC', amount: 10_000, lockedSide: 'SENDING' },
      sandboxRates(T),
    );
    // fixed 25 cents, variable 30 bps of 10000 = 30, converted 9945 cents at mid-market 1 less the 25 bps
    // spread = 99 201 375 micro-USDC, minus 0.05 USDC (6 cents at that rate, rounded up).
    expect(x).toEqual({
      sendingCurrency: 'USD',
      receivingCurrency: 'USDC',
      lockedSide: 'SENDING',
      exchangeRate: 0.9975,
      totalSendingAmount: 10_000,
      totalReceivingAmount: 99_151_375,
      feesIncluded: 25 + 30 + 6,
      fixedFees: 25 + 6,
      rateDetails: {
        counterpartyMultiplier: expect.any(Number),
        counterpartyFixedFee: 50_000,
        serviceApiMultiplier: expect.any(Number),
        serviceApiFixedFee: 25,
        serviceApiVariableFeeRate: 0.003,
        serviceApiVariableFeeAmount: 30,
      },
      updatedAt: T,
      expiresAt: T + RATE_WINDOW_MS,
    });
    // mSATS per cent times micro-USDC per mSAT is micro-USDC per cent, as applied (spread included).
    expect(x.rateDetails.serviceApiMultiplier * x.rateDetails.counterpartyMultiplier).toBeCloseTo(9_975, 3);
  });

  it('charges platform-specific fees (regulated institutions pay the lower tier)', () => {
    const input = { sendingCurrency: 'USD', receivingCurrency: 'EUR', amount: 100_000, lockedSide: 'SENDING' as const };
    const a = computeExchange(standard, input, sandboxRates(T));
    const b = computeExchange(regulated, input, sandboxRates(T));
    expect(a.exchangeRate).toBe(b.exchangeRate);
    expect(a.rateDetails).toMatchObject({ serviceApiFixedFee: 25, serviceApiVariableFeeRate: 0.003, serviceApiVariableFeeAmount: 300 });
    expect(b.rateDetails).toMatchObject({ serviceApiFixedFee: 10, serviceApiVariableFeeRate: 0.002, serviceApiVariableFeeAmount: 200 });
    expect(b.totalReceivingAmount).toBeGreaterThan(a.totalReceivingAmount);
  });

  it('uses each currency’s decimals (JPY 0, BTC 8)', () => {
    const x = computeExchange(
      standard,
      { sendingCurrency: 'JPY', receivingCurrency: 'BTC', amount: 1_000_000, lockedSide: 'SENDING' },
      sandboxRates(T),
    );
    // ¥1,000,000 is about USD 6,700, about 0.067 BTC = 6.7 million sats.
    expect(x.totalReceivingAmount).toBeGreaterThan(6_500_000);
    expect(x.totalReceivingAmount).toBeLessThan(6_900_000);
    expect(x.rateDetails.serviceApiFixedFee).toBe(37); // USD 0.25 in yen
    expect(x.rateDetails.counterpartyFixedFee).toBe(50); // USD 0.05 in sats
    expect(Number.isInteger(x.totalReceivingAmount) && Number.isInteger(x.feesIncluded)).toBe(true);
  });

  it('is constant within a 5-minute window and moves across windows', () => {
    const at = (now: number) =>
      computeExchange(
        standard,
        { sendingCurrency: 'USD', receivingCurrency: 'INR', amount: 10_000, lockedSide: 'SENDING' },
        sandboxRates(now),
      );
    const start = at(T);
    expect(at(T + RATE_WINDOW_MS - 1)).toEqual(start);
    expect(at(T + 123_456)).toEqual(start);
    const next = at(T + RATE_WINDOW_MS);
    expect(next.updatedAt).toBe(T + RATE_WINDOW_MS);
    expect(next.exchangeRate).not.toBe(start.exchangeRate);
    // Each currency drifts at most 0.1% per window, so a pair moves at most about 0.4%.
    expect(Math.abs(next.exchangeRate / start.exchangeRate - 1)).toBeLessThan(0.0041);
    expect(rateWindow(T + 1)).toEqual({ window: T / RATE_WINDOW_MS, updatedAt: T, expiresAt: T + RATE_WINDOW_MS });
    // Pegged pairs do not drift: mid-market 1, less the spread.
    const peg = (now: number) =>
      computeExchange(standard, { sendingCurrency: 'USDC', receivingCurrency: 'USD', amount: 1, lockedSide: 'SENDING' }, sandboxRates(now))
        .exchangeRate;
    expect([peg(T), peg(T + RATE_WINDOW_MS), peg(T + 99 * RATE_WINDOW_MS)]).toEqual([0.9975, 0.9975, 0.9975]);
  });

  it('a RECEIVING-locked amount needs the smallest sending amount whose SENDING result reaches it', () => {
    const code = fc.constantFrom(...SUPPORTED_CURRENCY_CODES);
    fc.assert(
      fc.property(
        code,
        code,
        fc.integer({ min: 1, max: 10_000_000_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.boolean(),
        (s, r, amount, w, reg) => {
          const platform = reg ? regulated : standard;
          const now = T + w * RATE_WINDOW_MS;
          const locked = computeExchange(
            platform,
            { sendingCurrency: s, receivingCurrency: r, amount, lockedSide: 'RECEIVING' },
            sandboxRates(now),
          );
          expect(locked.totalReceivingAmount).toBe(amount);
          const forward = computeExchange(
            platform,
            { sendingCurrency: s, receivingCurrency: r, amount: locked.totalSendingAmount, lockedSide: 'SENDING' },
            sandboxRates(now),
          );
          expect(forward.totalReceivingAmount).toBeGreaterThanOrEqual(amount);
          const less = computeExchange(
            platform,
            { sendingCurrency: s, receivingCurrency: r, amount: locked.totalSendingAmount - 1, lockedSide: 'SENDING' },
            sandboxRates(now),
          );
          expect(less.totalReceivingAmount).toBeLessThan(amount);
          expect(locked.rateDetails).toEqual(forward.rateDetails);
          expect(locked.feesIncluded).toBe(forward.feesIncluded);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never gives a negative amount: fees larger than a small amount leave 0', () => {
    const x = computeExchange(
      standard,
      { sendingCurrency: 'USD', receivingCurrency: 'EUR', amount: 20, lockedSide: 'SENDING' },
      sandboxRates(T),
    );
    expect(x.totalReceivingAmount).toBe(0);
    expect(() =>
      computeExchange(standard, { sendingCurrency: 'USD', receivingCurrency: 'EUR', amount: -1, lockedSide: 'SENDING' }, sandboxRates(T)),
    ).toThrow();
  });
});

describe('GET /exchange-rates', () => {
  it('lists corridors from the platform’s sending currencies, priced exactly like computeExchange', async () => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true });
    const res = await api('GET', '/exchange-rates?sourceCurrency=USD&destinationCurrency=INR', { auth: p.auth });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    const rate = res.body.data[0];
    const now = Date.parse(rate.updatedAt);
    const x = computeExchange(
      { id: p.id, isRegulatedFinancialInstitution: true },
      { sendingCurrency: 'USD', receivingCurrency: 'INR', amount: 10_000, lockedSide: 'SENDING' },
      sandboxRates(now),
    );
    expect(rate).toEqual({
      sourceCurrency: currency('USD'),
      destinationCurrency: currency('INR'),
      destinationPaymentRail: 'UPI',
      sendingAmount: 10_000,
      minSendingAmount: 1,
      maxSendingAmount: 100_000_000,
      receivingAmount: x.totalReceivingAmount,
      exchangeRate: x.exchangeRate,
      fees: { fixed: x.fixedFees },
      feesIncluded: x.feesIncluded,
      rateDetails: x.rateDetails,
      updatedAt: new Date(x.updatedAt).toISOString(),
      expiresAt: new Date(x.expiresAt).toISOString(),
    });
    expect(Date.parse(rate.expiresAt) - now).toBe(RATE_WINDOW_MS);
    expect(rate.exchangeRate).toBeGreaterThan(80);
  });

  it('filters by source, by repeated destinations and echoes sendingAmount', async () => {
    const p = await newPlatform();
    const all = await api('GET', '/exchange-rates', { auth: p.auth });
    const sources = SANDBOX_CURRENCIES.map((c) => c.currencyCode);
    const fiat = SUPPORTED_CURRENCY_CODES.filter((code) => currencyInfo(code).kind === 'FIAT');
    expect(fiat).toHaveLength(37);
    expect(all.body.data).toHaveLength(sources.length * (fiat.length - 1));
    for (const r of all.body.data) {
      expect(sources).toContain(r.sourceCurrency.code);
      expect(fiat).toContain(r.destinationCurrency.code);
      expect(r.destinationCurrency.code).not.toBe(r.sourceCurrency.code);
    }
    const some = await api(
      'GET',
      '/exchange-rates?sourceCurrency=EUR&destinationCurrency=GBP&destinationCurrency=MXN&sendingAmount=250000',
      { auth: p.auth },
    );
    expect(
      some.body.data.map((r: any) => [r.sourceCurrency.code, r.destinationCurrency.code, r.sendingAmount, r.destinationPaymentRail]),
    ).toEqual([
      ['EUR', 'GBP', 250_000, 'FASTER_PAYMENTS'],
      ['EUR', 'MXN', 250_000, 'SPEI'],
    ]);
    const commas = await api('GET', '/exchange-rates?sourceCurrency=EUR&destinationCurrency=GBP,MXN&sendingAmount=250000', {
      auth: p.auth,
    });
    expect(commas.body.data.map((r: any) => r.receivingAmount)).toEqual(some.body.data.map((r: any) => r.receivingAmount));
    // A catalogue currency the platform does not send has no corridors.
    expect((await api('GET', '/exchange-rates?sourceCurrency=JPY', { auth: p.auth })).body).toEqual({ data: [] });
  });

  it('only sends from currencies with OUTGOING enabled, within their configured limits', async () => {
    const p = await newPlatform({
      supportedCurrencies: [
        { currencyCode: 'GBP', minAmount: 500, maxAmount: 900_000, enabledTransactionTypes: ['OUTGOING'], requiredCounterpartyFields: [] },
        { currencyCode: 'CAD', minAmount: 1, maxAmount: 10, enabledTransactionTypes: ['INCOMING'], requiredCounterpartyFields: [] },
      ],
    });
    const res = await api('GET', '/exchange-rates?destinationCurrency=USD', { auth: p.auth });
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({ sourceCurrency: { code: 'GBP' }, minSendingAmount: 500, maxSendingAmount: 900_000 });
  });

  it('validates the query and needs VIEW', async () => {
    const p = await newPlatform();
    const bad = await api('GET', '/exchange-rates?sourceCurrency=XYZ&destinationCurrency=usd&sendingAmount=-5', { auth: p.auth });
    expectError(bad, 400, 'INVALID_INPUT');
    expect([...new Set(failingFields(bad))].sort()).toEqual(['destinationCurrency.0', 'sendingAmount', 'sourceCurrency']);
    expectError(await api('GET', '/exchange-rates?sendingAmount=1.5', { auth: p.auth }), 400, 'INVALID_INPUT');
    expectError(await api('GET', '/exchange-rates', { auth: await tokenWith(p, ['TRANSACT', 'MANAGE']) }), 403, 'FORBIDDEN');
    expectError(await api('GET', '/exchange-rates'), 401, 'UNAUTHORIZED');
    expect((await api('GET', '/exchange-rates', { auth: await tokenWith(p, ['VIEW']) })).status).toBe(200);
  });
});
