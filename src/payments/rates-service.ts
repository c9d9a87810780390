// GET /exchange-rates: the platform's corridors priced from the current rates.
import type { PlatformRow } from '../db/schema';
import { currency, currencyInfo, SUPPORTED_CURRENCY_CODES } from '../common/currencies';
import { iso } from '../common/time';
import { computeExchange, type MidMarket } from './rates';
import type { ExchangeRate } from './rates-schema';
import { defaultRail } from '../external-accounts/corridors';

interface ExchangeRateFilters {
  sourceCurrency?: string;
  destinationCurrency?: string[];
  sendingAmount: number;
}

/**
 * `GET /exchange-rates`: corridors from each currency the platform sends (its supportedCurrencies with
 * OUTGOING enabled, with their min/max) to every other fiat currency of the catalogue (bank rails;
 * crypto destinations have no rail here and are priced by quotes), priced by `computeExchange` from the
 * same rates quotes use.
 */
export function listExchangeRates(platform: PlatformRow, f: ExchangeRateFilters, rates: MidMarket): { data: ExchangeRate[] } {
  const sources = platform.supportedCurrencies.filter(
    (c) => c.enabledTransactionTypes.includes('OUTGOING') && (!f.sourceCurrency || c.currencyCode === f.sourceCurrency),
  );
  const wanted = f.destinationCurrency ? new Set(f.destinationCurrency) : undefined;
  const destinations = SUPPORTED_CURRENCY_CODES.filter((code) => currencyInfo(code).kind === 'FIAT' && (!wanted || wanted.has(code)));
  const data: ExchangeRate[] = [];
  for (const source of sources) {
    for (const dest of destinations) {
      if (dest === source.currencyCode) continue;
      const x = computeExchange(
        platform,
        { sendingCurrency: source.currencyCode, receivingCurrency: dest, amount: f.sendingAmount, lockedSide: 'SENDING' },
        rates,
      );
      data.push({
        sourceCurrency: currency(source.currencyCode),
        destinationCurrency: currency(dest),
        destinationPaymentRail: defaultRail(dest),
        sendingAmount: f.sendingAmount,
        minSendingAmount: source.minAmount,
        maxSendingAmount: source.maxAmount,
        receivingAmount: x.totalReceivingAmount,
        exchangeRate: x.exchangeRate,
        fees: { fixed: x.fixedFees },
        feesIncluded: x.feesIncluded,
        rateDetails: x.rateDetails,
        updatedAt: iso(x.updatedAt),
        expiresAt: iso(x.expiresAt),
      });
    }
  }
  return { data };
}
