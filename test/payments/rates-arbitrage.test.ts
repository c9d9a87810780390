import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { SUPPORTED_CURRENCY_CODES } from '../../src/common/currencies';
import { computeExchange, RATE_WINDOW_MS, type LockedSide, type MidMarket } from '../../src/payments/rates';
import { sandboxRates } from '../../src/payments/rates-sandbox';
import { QUOTE_TTL_MS } from '../../src/payments/quotes-service';

// Replay a failure with `FC_SEED=<seed> npm test -- test/payments/rates-arbitrage.test.ts`; FC_RUNS widens it.
const SEED = Number(inject('FC_SEED') || 20251013);
const RUNS = Number(inject('FC_RUNS') || 5000);
const T = Date.parse('2031-06-01T09:00:00.000Z');

const PAIRS = SUPPORTED_CURRENCY_CODES.flatMap((a) => SUPPORTED_CURRENCY_CODES.filter((b) => b !== a).map((b) => [a, b] as const));
const side = fc.constantFrom<LockedSide>('SENDING', 'RECEIVING');
/** 1 to about 10^11 smallest units, spread over every order of magnitude. */
const amount = fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 8 })).map(([m, e]) => m * 10 ** e);

interface RoundTrip {
  pair: readonly [string, string];
  amount: number;
  thereSide: LockedSide;
  backSide: LockedSide;
  regulated: boolean;
}
const roundTrip = { pair: fc.constantFrom(...PAIRS), amount, thereSide: side, backSide: side, regulated: fc.boolean() };
/** Every pair at least once (a large amount at the lower fee tier, the farmer's best case), then random cases. */
const everyPair = <T extends object>(extra: (a: string, b: string) => T) =>
  PAIRS.map(
    (pair) =>
      [
        {
          pair,
          amount: 1_000_000_000,
          thereSide: 'SENDING' as LockedSide,
          backSide: 'SENDING' as LockedSide,
          regulated: true,
          ...extra(...pair),
        },
      ] as [RoundTrip & T],
  );

/**
 * A→B priced from `first`, then B→A priced from `second`: the way back never returns what was sent.
 * Locked SENDING on the way back sends all of B received; locked RECEIVING asks for exactly what was
 * sent and must need more B than was received.
 */
function expectLoss(c: RoundTrip, first: MidMarket, second: MidMarket) {
  const [a, b] = c.pair;
  const platform = { id: 'Platform:p', isRegulatedFinancialInstitution: c.regulated };
  const there = computeExchange(platform, { sendingCurrency: a, receivingCurrency: b, amount: c.amount, lockedSide: c.thereSide }, first);
  if (there.totalReceivingAmount === 0) return; // the fees took it all: nothing comes back
  if (!Number.isSafeInteger(there.totalSendingAmount) || !Number.isSafeInteger(there.totalReceivingAmount)) return; // beyond any amount the API takes
  const sent = there.totalSendingAmount;
  const received = there.totalReceivingAmount;
  if (c.backSide === 'SENDING') {
    const back = computeExchange(platform, { sendingCurrency: b, receivingCurrency: a, amount: received, lockedSide: 'SENDING' }, second);
    expect(back.totalReceivingAmount, `${a}→${b}→${a}: sent ${sent}, got back ${back.totalReceivingAmount}`).toBeLessThan(sent);
  } else {
    const back = computeExchange(platform, { sendingCurrency: b, receivingCurrency: a, amount: sent, lockedSide: 'RECEIVING' }, second);
    expect(
      back.totalSendingAmount,
      `${a}→${b}→${a}: getting back ${sent} needs ${back.totalSendingAmount} ${b}, received ${received}`,
    ).toBeGreaterThan(received);
  }
}

describe('no arbitrage: a round trip A→B→A priced at the same moment returns less than was sent', () => {
  it('sandbox: the way back priced at any moment the first quote still lives (same window or the next)', () => {
    fc.assert(
      fc.property(
        fc.record({
          ...roundTrip,
          at: fc.integer({ min: T, max: T + 1e6 * RATE_WINDOW_MS }),
          later: fc.integer({ min: 0, max: QUOTE_TTL_MS - 1 }),
        }),
        (c) => {
          // The quote A→B made at `at` is still executable `later`, when B→A is priced (maybe in the next window).
          expectLoss(c, sandboxRates(c.at), sandboxRates(c.at + c.later));
        },
      ),
      { seed: SEED, numRuns: RUNS, examples: everyPair(() => ({ at: T + RATE_WINDOW_MS - 1, later: 1 })) },
    );
  });

  it('production: any mid-market rates, both legs from one snapshot or from two 0.2% apart per currency', () => {
    const value = fc.double({ min: -6, max: 6, noNaN: true }).map((e) => 10 ** e); // USD per major unit
    const move = fc.double({ min: -0.002, max: 0.002, noNaN: true });
    const snapshot = fc.record(Object.fromEntries(SUPPORTED_CURRENCY_CODES.map((code) => [code, fc.tuple(value, move)])));
    // The worst move for A→B then B→A: A falls and B rises by the most.
    const worst = (a: string, b: string) => ({
      values: Object.fromEntries(
        Object.entries(sandboxRates(T).usd).map(([code, v]) => [
          code,
          [v, code === a ? -0.002 : code === b ? 0.002 : 0] as [number, number],
        ]),
      ),
      moved: true,
    });
    fc.assert(
      fc.property(fc.record({ ...roundTrip, values: snapshot, moved: fc.boolean() }), (c) => {
        const first = {
          usd: Object.fromEntries(Object.entries(c.values).map(([code, [v]]) => [code, v])),
          updatedAt: T,
          expiresAt: T + RATE_WINDOW_MS,
        };
        const next = Object.fromEntries(Object.entries(c.values).map(([code, [v, m]]) => [code, v * (1 + (c.moved ? m : 0))]));
        expectLoss(c, first, { usd: next, updatedAt: T + RATE_WINDOW_MS, expiresAt: T + 2 * RATE_WINDOW_MS });
      }),
      { seed: SEED, numRuns: RUNS, examples: everyPair(worst) },
    );
  });
});
