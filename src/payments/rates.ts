import { currencyInfo } from '../common/currencies';

/**
 * Sandbox pricing: one pure function, `computeExchange`, prices every conversion, so `GET /exchange-rates`
 * and quotes agree to the unit.
 *
 * Mid-market rates come from a table of USD values per major unit. Except the anchors (USD, and USDC
 * pegged 1:1), each value drifts by at most ±0.5% per 5-minute window, derived deterministically from
 * the window number, so a rate is constant within its window (spec 8: cached about 5 minutes) and
 * changes across windows. Routing is modelled, as in the reference, through millisatoshis (mSATS):
 * `serviceApiMultiplier` is mSATS per smallest sending unit, `counterpartyMultiplier` is smallest
 * receiving units per mSAT; their product is the conversion between smallest units.
 *
 * Fees (integers, smallest units):
 *   serviceApiFixedFee           sending currency; the platform's fixed fee (USD-equivalent, tiered)
 *   serviceApiVariableFeeAmount  sending currency; round_half_up(totalSendingAmount × serviceApiVariableFeeRate)
 *   counterpartyFixedFee         receiving currency; the payout partner's fixed fee (USD 0.05 equivalent)
 * Locked SENDING side (amount A = totalSendingAmount):
 *   converted            = A − serviceApiFixedFee − serviceApiVariableFeeAmount
 *   totalReceivingAmount = max(0, floor(converted × exchangeRate × 10^(dR − dS)) − counterpartyFixedFee)
 * Locked RECEIVING side (amount B = totalReceivingAmount): totalSendingAmount is the smallest A whose
 * SENDING-side result reaches B; the receiver gets exactly B.
 * feesIncluded (sending currency) = serviceApiFixedFee + serviceApiVariableFeeAmount
 *                                   + ceil(counterpartyFixedFee / (exchangeRate × 10^(dR − dS))).
 * `exchangeRate` is receiving major units per sending major unit, rounded to 8 significant digits, and
 * that rounded value is the one applied (exact decimal arithmetic with BigInt).
 */

export const RATE_WINDOW_MS = 5 * 60_000;
const MAX_DRIFT = 0.005;
const MSATS_PER_BTC = 100_000_000_000;

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

/** Who pays: fees depend on the platform (regulated institutions get the lower tier). */
export interface PricingPlatform {
  id: string;
  isRegulatedFinancialInstitution: boolean;
}

interface FeeSchedule {
  /** Variable fee in basis points of the sending amount. */
  variableFeeBps: number;
  /** Fixed fee as a USD amount, charged in the sending currency. */
  fixedFeeUsd: number;
}

const COUNTERPARTY_FIXED_FEE_USD = 0.05;

export function feeSchedule(platform: PricingPlatform): FeeSchedule {
  return platform.isRegulatedFinancialInstitution ? { variableFeeBps: 20, fixedFeeUsd: 0.1 } : { variableFeeBps: 30, fixedFeeUsd: 0.25 };
}

export type LockedSide = 'SENDING' | 'RECEIVING';

export interface ExchangeInput {
  sendingCurrency: string;
  receivingCurrency: string;
  /** Smallest unit of the locked side's currency. */
  amount: number;
  lockedSide: LockedSide;
  /** Platform time (ms); selects the rate window. */
  now: number;
}

export interface RateDetails {
  counterpartyMultiplier: number;
  counterpartyFixedFee: number;
  serviceApiMultiplier: number;
  serviceApiFixedFee: number;
  serviceApiVariableFeeRate: number;
  serviceApiVariableFeeAmount: number;
}

export interface Exchange {
  sendingCurrency: string;
  receivingCurrency: string;
  lockedSide: LockedSide;
  /** Receiving major units per sending major unit (as the reference's examples: USD→INR 82.5). */
  exchangeRate: number;
  totalSendingAmount: number;
  /** 0 when the fees exceed a SENDING-locked amount; quotes refuse that. */
  totalReceivingAmount: number;
  /** All fees, in the sending currency's smallest unit. */
  feesIncluded: number;
  /** The fixed part of `feesIncluded` (service and counterparty fixed fees), sending currency. */
  fixedFees: number;
  rateDetails: RateDetails;
  /** Start and end of the rate window the price belongs to. */
  updatedAt: number;
  expiresAt: number;
}

/** FNV-1a: a stable 32-bit hash, so every isolate draws the same drift for a window. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** USD value of one major unit of `code` in rate window `window`. */
function usdValue(code: string, window: number): number {
  const base = USD_VALUE[code];
  if (base === undefined) throw new Error(`no sandbox rate for ${code}`);
  if (PEGGED.has(code)) return base;
  const unit = hash32(`${code}:${window}`) / 0x1_0000_0000; // [0, 1)
  return base * (1 + (unit * 2 - 1) * MAX_DRIFT);
}

/** A positive number as an exact decimal m × 10^e with 8 significant digits. */
interface Decimal {
  m: bigint;
  e: number;
}

function toDecimal(x: number): Decimal {
  const [mantissa, exponent] = x.toExponential(7).split('e') as [string, string];
  return { m: BigInt(mantissa.replace('.', '')), e: Number(exponent) - 7 };
}

const round8 = (x: number) => Number(x.toPrecision(8));
const pow10 = (n: number) => 10n ** BigInt(n);

/** floor(a × d × 10^shift) exactly. */
function mulFloor(a: bigint, d: Decimal, shift: number): bigint {
  const exp = d.e + shift;
  return exp >= 0 ? a * d.m * pow10(exp) : (a * d.m) / pow10(-exp);
}

/** ceil(a / (d × 10^shift)) exactly. */
function divCeil(a: bigint, d: Decimal, shift: number): bigint {
  const exp = d.e + shift;
  const num = exp >= 0 ? a : a * pow10(-exp);
  const den = exp >= 0 ? d.m * pow10(exp) : d.m;
  return (num + den - 1n) / den;
}

/** A USD amount in the smallest unit of `code`, at the central (undrifted) value, at least 1. */
function usdInUnits(usd: number, code: string): number {
  return Math.max(1, Math.round((usd / USD_VALUE[code]!) * 10 ** currencyInfo(code).decimals));
}

/** The rate window containing `now`: [updatedAt, expiresAt). */
export function rateWindow(now: number): { window: number; updatedAt: number; expiresAt: number } {
  const window = Math.floor(now / RATE_WINDOW_MS);
  return { window, updatedAt: window * RATE_WINDOW_MS, expiresAt: (window + 1) * RATE_WINDOW_MS };
}

/**
 * Prices a conversion for a platform: exchange rate, fees, rate details and both totals, in integers of
 * each currency's smallest unit (the formula is in this file's header). Pure: the same inputs within
 * the same 5-minute window always give the same result.
 */
export function computeExchange(platform: PricingPlatform, input: ExchangeInput): Exchange {
  const { sendingCurrency: s, receivingCurrency: r, lockedSide } = input;
  if (!Number.isSafeInteger(input.amount) || input.amount < 0) throw new Error(`invalid amount ${input.amount}`);
  const dS = currencyInfo(s).decimals;
  const dR = currencyInfo(r).decimals;
  const { window, updatedAt, expiresAt } = rateWindow(input.now);
  const valueS = usdValue(s, window);
  const valueR = usdValue(r, window);
  const valueBtc = usdValue('BTC', window);

  const exchangeRate = s === r ? 1 : round8(valueS / valueR);
  const rate = toDecimal(exchangeRate);
  const shift = dR - dS;
  const fees = feeSchedule(platform);
  const fixed = BigInt(usdInUnits(fees.fixedFeeUsd, s));
  const counterpartyFixedFee = BigInt(usdInUnits(COUNTERPARTY_FIXED_FEE_USD, r));
  const bps = BigInt(fees.variableFeeBps);
  const variableFee = (a: bigint) => (a * bps + 5_000n) / 10_000n;
  const receivedFor = (a: bigint): bigint => {
    const converted = a - fixed - variableFee(a);
    if (converted <= 0n) return 0n;
    const gross = mulFloor(converted, rate, shift) - counterpartyFixedFee;
    return gross > 0n ? gross : 0n;
  };

  let sending: bigint;
  let receiving: bigint;
  if (lockedSide === 'SENDING') {
    sending = BigInt(input.amount);
    receiving = receivedFor(sending);
  } else {
    receiving = BigInt(input.amount);
    sending = smallestSendingFor(receiving, receivedFor, fixed, counterpartyFixedFee, rate, shift, bps);
  }

  const counterpartyInSending = divCeil(counterpartyFixedFee, rate, shift);
  const variable = variableFee(sending);
  const serviceApiMultiplier = round8((valueS / 10 ** dS / valueBtc) * MSATS_PER_BTC);
  const counterpartyMultiplier = round8((valueBtc / MSATS_PER_BTC / valueR) * 10 ** dR);
  return {
    sendingCurrency: s,
    receivingCurrency: r,
    lockedSide,
    exchangeRate,
    totalSendingAmount: Number(sending),
    totalReceivingAmount: Number(receiving),
    feesIncluded: Number(fixed + variable + counterpartyInSending),
    fixedFees: Number(fixed + counterpartyInSending),
    rateDetails: {
      counterpartyMultiplier,
      counterpartyFixedFee: Number(counterpartyFixedFee),
      serviceApiMultiplier,
      serviceApiFixedFee: Number(fixed),
      serviceApiVariableFeeRate: fees.variableFeeBps / 10_000,
      serviceApiVariableFeeAmount: Number(variable),
    },
    updatedAt,
    expiresAt,
  };
}

/** The smallest sending amount whose result reaches `target` (results grow with the amount). */
function smallestSendingFor(
  target: bigint,
  receivedFor: (a: bigint) => bigint,
  fixed: bigint,
  counterpartyFixedFee: bigint,
  rate: Decimal,
  shift: number,
  bps: bigint,
): bigint {
  if (target <= 0n) return 0n;
  // Estimate from the inverse formula, then settle exactly by binary search around it.
  const converted = divCeil(target + counterpartyFixedFee, rate, shift);
  let hi = ((converted + fixed + 1n) * 10_000n) / (10_000n - bps) + 2n;
  while (receivedFor(hi) < target) hi *= 2n;
  let lo = 0n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (receivedFor(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** `amount` (smallest unit of `from`) in the smallest unit of `to` at the window's mid-market rate, no fees. */
export function convertAtMidMarket(amount: number, from: string, to: string, now: number): number {
  if (from === to) return amount;
  const { window } = rateWindow(now);
  const major = amount / 10 ** currencyInfo(from).decimals;
  return Math.round(((major * usdValue(from, window)) / usdValue(to, window)) * 10 ** currencyInfo(to).decimals);
}
