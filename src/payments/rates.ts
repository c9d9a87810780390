// Pricing: every conversion priced from a snapshot of mid-market rates, without arbitrage.
import type { LockedSide } from '../db/enums';
import { currencyInfo } from '../common/currencies';
import { ApiError } from '../http/errors';

/**
 * Pricing: one pure function, `computeExchange`, prices every conversion from a snapshot of mid-market
 * rates (`MidMarket`: USD value of one major unit per currency, and the period it holds for), so
 * `GET /exchange-rates` and quotes agree to the unit. Where the snapshot comes from is the rate source's
 * business (rates-source.ts): the sandbox's drifting table (rates-sandbox.ts), or in production the
 * configured `RATES_URL`. Routing is modelled, as in the reference, through millisatoshis (mSATS):
 * `serviceApiMultiplier` is mSATS per smallest sending unit, `counterpartyMultiplier` is smallest
 * receiving units per mSAT; their product is the applied conversion between smallest units.
 *
 * No arbitrage: a conversion between two currencies is priced SPREAD_BPS below mid-market, so a round
 * trip A→B→A pays the spread twice on top of the variable fees (at the lowest tier 2 × (25 + 20) bps =
 * 0.9%) and the fixed fees, and returns less than was sent when both legs are priced from the same
 * snapshot. A quote lives 5 minutes, so it can still be executed while the next snapshot prices the way
 * back: the margin must also exceed how far a pair moves between two snapshots. The sandbox drifts
 * around fixed centres, so a pair's rates in any two windows are within about 0.4%; a production source
 * is assumed to move each currency less than 0.2% in 5 minutes (test/payments/rates-arbitrage.test.ts
 * checks both).
 *
 * Fees (integers, smallest units; USD amounts converted at the snapshot's mid-market):
 *   serviceApiFixedFee           sending currency; the platform's fixed fee (USD-equivalent, tiered)
 *   serviceApiVariableFeeAmount  sending currency; round_half_up(totalSendingAmount × serviceApiVariableFeeRate)
 *   counterpartyFixedFee         receiving currency; the payout partner's fixed fee (USD 0.05 equivalent)
 * exchangeRate = mid-market × (1 − SPREAD_BPS / 10 000), receiving major units per sending major unit,
 * rounded to 8 significant digits (1 between a currency and itself); that rounded value is the one applied
 * (exact decimal arithmetic with BigInt).
 * Locked SENDING side (amount A = totalSendingAmount):
 *   converted            = A − serviceApiFixedFee − serviceApiVariableFeeAmount
 *   totalReceivingAmount = max(0, floor(converted × exchangeRate × 10^(dR − dS)) − counterpartyFixedFee)
 * Locked RECEIVING side (amount B = totalReceivingAmount): totalSendingAmount is the smallest A whose
 * SENDING-side result reaches B; the receiver gets exactly B.
 * feesIncluded (sending currency) = serviceApiFixedFee + serviceApiVariableFeeAmount
 *                                   + ceil(counterpartyFixedFee / (exchangeRate × 10^(dR − dS))).
 */

/** How long a snapshot of rates holds (rates are cached about 5 minutes), in both modes. */
export const RATE_WINDOW_MS = 5 * 60_000;

/** What the service keeps on each conversion, below mid-market (see the header: no arbitrage). */
const SPREAD_BPS = 25;
const MSATS_PER_BTC = 100_000_000_000;

/** Mid-market rates at one moment: USD value of one major unit per currency code. */
export interface MidMarket {
  usd: Readonly<Record<string, number>>;
  /** When the snapshot was taken and when it is replaced. */
  updatedAt: number;
  expiresAt: number;
}

/** 503 RATES_UNAVAILABLE: no trustworthy price, so nothing is priced (never an invented rate). */
export const ratesUnavailable = (message: string) => new ApiError('RATES_UNAVAILABLE', message);

/** Who pays: fees depend on the platform (regulated institutions get the lower tier). */
interface PricingPlatform {
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

function feeSchedule(platform: PricingPlatform): FeeSchedule {
  return platform.isRegulatedFinancialInstitution ? { variableFeeBps: 20, fixedFeeUsd: 0.1 } : { variableFeeBps: 30, fixedFeeUsd: 0.25 };
}

export type { LockedSide };

interface ExchangeInput {
  sendingCurrency: string;
  receivingCurrency: string;
  /** Smallest unit of the locked side's currency. */
  amount: number;
  lockedSide: LockedSide;
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
  /** When the snapshot the price comes from was taken and when it is replaced. */
  updatedAt: number;
  expiresAt: number;
}

/** USD value of one major unit of `code` in the snapshot; a currency it lacks cannot be priced. */
export function usdValue(rates: MidMarket, code: string): number {
  const value = rates.usd[code];
  if (value === undefined) throw ratesUnavailable(`No exchange rate for ${code} is available`);
  return value;
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

/** A USD amount in the smallest unit of a currency worth `value` USD per major unit, at least 1. */
function usdInUnits(usd: number, value: number, code: string): number {
  return Math.max(1, Math.round((usd / value) * 10 ** currencyInfo(code).decimals));
}

/**
 * Prices a conversion for a platform: exchange rate, fees, rate details and both totals, in integers of
 * each currency's smallest unit (the formula is in this file's header). Pure: the same inputs and
 * snapshot always give the same result. A currency missing from the snapshot is 503 RATES_UNAVAILABLE.
 */
export function computeExchange(platform: PricingPlatform, input: ExchangeInput, rates: MidMarket): Exchange {
  const { sendingCurrency: s, receivingCurrency: r, lockedSide } = input;
  if (!Number.isSafeInteger(input.amount) || input.amount < 0) throw new Error(`invalid amount ${input.amount}`);
  const dS = currencyInfo(s).decimals;
  const dR = currencyInfo(r).decimals;
  const valueS = usdValue(rates, s);
  const valueR = usdValue(rates, r);
  const valueBtc = usdValue(rates, 'BTC');

  // The spread is the service's, so it sits in its leg (mSATS per sending unit).
  const spread = s === r ? 1 : 1 - SPREAD_BPS / 10_000;
  const exchangeRate = s === r ? 1 : round8((valueS / valueR) * spread);
  const rate = toDecimal(exchangeRate);
  const shift = dR - dS;
  const fees = feeSchedule(platform);
  const fixed = BigInt(usdInUnits(fees.fixedFeeUsd, valueS, s));
  const counterpartyFixedFee = BigInt(usdInUnits(COUNTERPARTY_FIXED_FEE_USD, valueR, r));
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
  const serviceApiMultiplier = round8(((valueS * spread) / 10 ** dS / valueBtc) * MSATS_PER_BTC);
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
    updatedAt: rates.updatedAt,
    expiresAt: rates.expiresAt,
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

/** A positive number exactly as its shortest decimal form, m × 10^e (1.08 is 108 × 10^-2). */
function exactDecimal(x: number): Decimal {
  const [mantissa, exponent] = x.toExponential().split('e') as [string, string];
  const [whole, fraction = ''] = mantissa.split('.') as [string, string?];
  return { m: BigInt(whole + fraction), e: Number(exponent) - fraction.length };
}

/**
 * `amount` (smallest unit of `from`) in the smallest unit of `to` at the snapshot's mid-market rate, no
 * fees, rounded UP (exact BigInt arithmetic on the rates' decimal values): what is counted against a limit
 * never rounds below what was moved.
 */
export function convertAtMidMarketUp(amount: number, from: string, to: string, rates: MidMarket): number {
  if (from === to) return amount;
  return convertUp(
    amount,
    { usd: usdValue(rates, from), decimals: currencyInfo(from).decimals },
    { usd: usdValue(rates, to), decimals: currencyInfo(to).decimals },
  );
}

/** An asset by its USD value per whole unit and its decimals. */
interface Valued {
  usd: number;
  decimals: number;
}

/**
 * `amount` (smallest unit of `from`) in the smallest unit of `to`, by their USD values, rounded UP, exactly
 * (BigInt on the values' decimal forms): for assets outside the rate snapshot too (a chain's fee asset).
 */
export function convertUp(amount: number, from: Valued, to: Valued): number {
  const value = { from: exactDecimal(from.usd), to: exactDecimal(to.usd) };
  // amount × from / to × 10^(dTo − dFrom), as num / den, every power of ten on the side where it is positive.
  const exp = value.from.e - value.to.e + to.decimals - from.decimals;
  const num = BigInt(amount) * value.from.m * (exp > 0 ? pow10(exp) : 1n);
  const den = value.to.m * (exp < 0 ? pow10(-exp) : 1n);
  return Number((num + den - 1n) / den);
}
