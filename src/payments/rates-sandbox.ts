// The sandbox's mid-market rates: a fixed table drifting deterministically per 5-minute window.
import { RATE_WINDOW_MS, type MidMarket } from './rates';

/**
 * The sandbox's mid-market rates: a table of USD values per major unit. Except the anchors (USD, and
 * USDC pegged 1:1), each value drifts by at most ±MAX_DRIFT per 5-minute window, derived
 * deterministically from the window number, so a rate is constant within its window (rates are cached
 * about 5 minutes), changes across windows, and is the same in every isolate. The drift is public and
 * predictable, so it is kept well below what a round trip pays (see rates.ts): being around fixed
 * centres, not cumulative, it moves a pair at most about 4 × MAX_DRIFT between any two windows.
 */

const MAX_DRIFT = 0.001;

/** USD value of one major unit at the centre of the drift. */
const USD_VALUE: Record<string, number> = {
  USD: 1,
  EUR: 1.08,
  GBP: 1.27,
  CAD: 0.73,
  MXN: 0.058,
  BRL: 0.18,
  INR: 0.012,
  NGN: 0.00065,
  PHP: 0.0175,
  KES: 0.0077,
  JPY: 0.0067,
  AED: 0.2723,
  ARS: 0.00072,
  BDT: 0.0082,
  BWP: 0.074,
  COP: 0.00025,
  DKK: 0.145,
  EGP: 0.0205,
  GHS: 0.08,
  GTQ: 0.13,
  HKD: 0.1286,
  HTG: 0.0076,
  IDR: 0.00006,
  JMD: 0.0063,
  MWK: 0.00058,
  MYR: 0.236,
  PKR: 0.00355,
  RWF: 0.00069,
  SGD: 0.77,
  THB: 0.0305,
  TZS: 0.00041,
  UGX: 0.00027,
  VND: 0.000038,
  XAF: 0.00165,
  XOF: 0.00165,
  ZAR: 0.056,
  ZMW: 0.043,
  BTC: 100_000,
  USDC: 1,
};
const PEGGED = new Set(['USD', 'USDC']);

/** FNV-1a: a stable 32-bit hash, so every isolate draws the same drift for a window. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The rate window containing `now`: [updatedAt, expiresAt). */
export function rateWindow(now: number): { window: number; updatedAt: number; expiresAt: number } {
  const window = Math.floor(now / RATE_WINDOW_MS);
  return { window, updatedAt: window * RATE_WINDOW_MS, expiresAt: (window + 1) * RATE_WINDOW_MS };
}

/** The sandbox's mid-market rates of the window containing `now` (platform time). */
export function sandboxRates(now: number): MidMarket {
  const { window, updatedAt, expiresAt } = rateWindow(now);
  const usd: Record<string, number> = {};
  for (const [code, base] of Object.entries(USD_VALUE)) {
    const unit = hash32(`${code}:${window}`) / 0x1_0000_0000; // [0, 1)
    usd[code] = PEGGED.has(code) ? base : base * (1 + (unit * 2 - 1) * MAX_DRIFT);
  }
  return { usd, updatedAt, expiresAt };
}
