import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, newPlatform, type TestPlatform } from '../support/api';
import { balanceOf, createQuote, customerWithAccounts, execute, expectLedgerInvariant, fund } from '../support/payments';

const W = 5 * 60_000; // rates are cached about 5 minutes, and a quote lives 5 minutes
const T0 = Date.parse('2032-03-01T00:00:00.000Z'); // a window boundary
afterEach(() => vi.useRealTimers());

const conversion = (from: string, to: string, amount: number) => ({
  source: { sourceType: 'ACCOUNT', accountId: from },
  destination: { destinationType: 'ACCOUNT', accountId: to },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: amount,
});

/** The published rate of a corridor at the current (pinned) time. */
async function rateOf(p: TestPlatform, from: string, to: string): Promise<number> {
  const res = await api('GET', `/exchange-rates?sourceCurrency=${from}&destinationCurrency=${to}`, { auth: p.auth });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data[0].exchangeRate;
}

/**
 * What a farmer does: read the published rates window after window and pick the moment where a quote
 * A→B priced at the end of one window and a quote B→A priced at the start of the next (both alive at
 * the same moment) look most favourable.
 */
async function mostFavourableWindow(p: TestPlatform, a: string, b: string, windows: number): Promise<number> {
  let best = { w: 0, gain: -Infinity };
  let previous: number | undefined;
  for (let w = 0; w <= windows; w++) {
    vi.setSystemTime(T0 + w * W);
    const there = await rateOf(p, a, b);
    const back = await rateOf(p, b, a);
    if (previous !== undefined && previous * back > best.gain) best = { w: w - 1, gain: previous * back };
    previous = there;
  }
  return best.w;
}

describe('no exchange-rate farming: a round trip A→B→A through quotes never returns more than was sent', () => {
  it.each([
    ['MXN', 'BRL', 10_000_000],
    ['EUR', 'MXN', 1_000_000],
  ])('%s→%s→%s, with both quotes alive at the same moment, in the most favourable windows', async (a, b, amount) => {
    const p = await newPlatform({ isRegulatedFinancialInstitution: true }); // the lower fee tier
    const { accounts } = await customerWithAccounts(p);
    const w = await mostFavourableWindow(p, a, b, 40);

    // Both legs priced in the same window, and across the window boundary (the first quote still valid).
    for (const secondLegAt of [T0 + w * W + W - 2_000, T0 + (w + 1) * W]) {
      vi.setSystemTime(T0 + w * W + W - 3_000);
      await fund(p, accounts[a]!, amount);
      const start = await balanceOf(p, accounts[a]!);
      const there = await createQuote(p, conversion(accounts[a]!, accounts[b]!, amount));
      vi.setSystemTime(secondLegAt);
      const back = await createQuote(p, conversion(accounts[b]!, accounts[a]!, there.totalReceivingAmount));
      expect(Date.parse(there.expiresAt)).toBeGreaterThan(secondLegAt); // both quotes are executable now
      expect((await execute(p, there.id)).status).toBe(200);
      expect((await execute(p, back.id)).status).toBe(200);
      const end = await balanceOf(p, accounts[a]!);
      expect(back.totalReceivingAmount, `${a}→${b}→${a} returned ${back.totalReceivingAmount} for ${amount}`).toBeLessThan(amount);
      expect(end).toBeLessThan(start);
    }
    await expectLedgerInvariant(p.id);
  });
});
