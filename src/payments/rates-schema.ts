// The exchange-rate schemas: rate details, the query and the rates.
import * as z from 'zod';
import { Currency, CurrencyCode } from '../common/currencies';
import { PaymentRail } from '../common/payment-rails';
import { DateTime } from '../common/time';
import { errorSchema } from '../http/errors';

/** The rail enum lives with the corridors' declarations, on the common floor. */
export { PaymentRail };

/** Rate and fee breakdown shared by exchange rates, quotes and outgoing transactions. */
export const RateDetails = z
  .object({
    counterpartyMultiplier: z
      .number()
      .positive()
      .meta({ description: 'Smallest receiving-currency units per mSAT, as the counterparty prices it' }),
    counterpartyFixedFee: z.int().min(0).meta({ description: 'Counterparty fixed fee, smallest unit of the receiving currency' }),
    serviceApiMultiplier: z.number().positive().meta({ description: 'mSATS per smallest sending-currency unit' }),
    serviceApiFixedFee: z.int().min(0).meta({ description: 'Service fixed fee, smallest unit of the sending currency' }),
    serviceApiVariableFeeRate: z
      .number()
      .min(0)
      .meta({ description: 'Service variable fee as a fraction of the sending amount', example: 0.003 }),
    serviceApiVariableFeeAmount: z
      .int()
      .min(0)
      .meta({ description: 'Sending amount × serviceApiVariableFeeRate, smallest unit of the sending currency' }),
  })
  .meta({ id: 'OutgoingRateDetails' });

const codeList = z.preprocess(
  (v) =>
    v === undefined
      ? undefined
      : ([] as unknown[])
          .concat(v)
          .flatMap((x) => String(x).split(','))
          .filter((x) => x !== ''),
  z.array(CurrencyCode).max(20).optional(),
);

export const ExchangeRateQuery = z.object({
  sourceCurrency: CurrencyCode.optional().meta({ description: 'Only corridors from this currency' }),
  destinationCurrency: codeList.meta({
    description: 'Only corridors to these currencies; repeat the parameter (or separate with commas) for several',
  }),
  sendingAmount: z.coerce
    .number()
    .int()
    .min(0)
    .max(9_000_000_000_000_000)
    .default(10_000)
    .meta({ description: 'Sending amount in the smallest unit of the source currency (default 10000)' }),
});

export const ExchangeRate = z
  .object({
    sourceCurrency: Currency,
    destinationCurrency: Currency,
    destinationPaymentRail: PaymentRail,
    sendingAmount: z.int().min(0),
    minSendingAmount: z.int().min(0),
    maxSendingAmount: z.int().min(0),
    receivingAmount: z
      .int()
      .min(0)
      .meta({ description: 'What a quote locked on the sending side for sendingAmount would deliver, fees deducted' }),
    exchangeRate: z.number().positive().meta({ description: 'Receiving-currency major units per sending-currency major unit' }),
    fees: z
      .object({ fixed: z.int().min(0).meta({ description: 'Fixed fees in the smallest unit of the sending currency' }) })
      .meta({ id: 'ExchangeRateFees' }),
    feesIncluded: z
      .int()
      .min(0)
      .meta({ description: 'All fees for sendingAmount (fixed and variable), smallest unit of the sending currency' }),
    rateDetails: RateDetails,
    updatedAt: DateTime.meta({ description: 'Start of the rate window this rate belongs to' }),
    expiresAt: DateTime.meta({ description: 'When this rate is replaced (rates are fixed for 5-minute windows)' }),
  })
  .meta({ id: 'ExchangeRate' });
export type ExchangeRate = z.infer<typeof ExchangeRate>;

export const ExchangeRateList = z.object({ data: z.array(ExchangeRate) }).meta({ id: 'ExchangeRateListResponse' });

/** The 503 of every operation that prices with exchange rates, for the OpenAPI document. */
export const ratesUnavailableResponse = {
  503: {
    description: 'No exchange rate is available now (RATES_UNAVAILABLE): production has no rate source, or it failed',
    schema: errorSchema(503),
  },
};
