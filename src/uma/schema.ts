// The UMA provider schemas: the provider, its list and filters, the operator's input.
import * as z from 'zod';
import { Currency, currency, SUPPORTED_CURRENCY_CODES } from '../common/currencies';
import { BooleanParam, CountryCode, text } from '../common/fields';
import { cursorParam, limitParam, sortOrderParam } from '../http/pagination';
import { Domain, HttpUrl } from '../platform/schema';

export const UmaProvider = z
  .object({
    name: z.string(),
    supportedRegions: z.array(z.string()).meta({ description: 'ISO 3166-1 alpha-2 country codes' }),
    domain: z.string(),
    logoUrl: z.string().optional(),
    supportedCurrencies: z.array(Currency),
    lei: z.string().optional(),
    allowListStatus: z.boolean().meta({ description: 'Whether the provider is on the allow list' }),
  })
  .meta({ id: 'UmaProvider' });
export type UmaProviderView = z.infer<typeof UmaProvider>;

export const UmaProviderList = z
  .object({
    data: z.array(UmaProvider),
    hasMore: z.boolean(),
    nextCursor: z.string().optional().meta({ description: 'Only when hasMore is true' }),
    totalCount: z.int().min(0).meta({ description: 'All matching providers, regardless of pagination' }),
  })
  .meta({ id: 'UmaProviderListResponse' });

export const UmaProviderListQuery = z.object({
  countryCode: CountryCode.optional().meta({ description: 'Providers serving this ISO 3166-1 alpha-2 country' }),
  currencyCode: z
    .string()
    .regex(/^[A-Z]{3}$/, 'Must be an ISO 4217 currency code such as USD')
    .optional()
    .meta({ description: 'Providers supporting this ISO 4217 currency' }),
  hasBlockedProviders: BooleanParam.optional().meta({
    description: 'Include providers not on the allow list (default true); false leaves them out',
  }),
  limit: limitParam,
  cursor: cursorParam,
  sortOrder: sortOrderParam.meta({ description: 'Order by provider name (ties by id); default desc' }),
});
export type UmaProviderListQuery = z.infer<typeof UmaProviderListQuery>;

/** A currency of a provider: a code the service knows, or a full Currency object for any other. */
const ProviderCurrency = z.union([
  z
    .string()
    .refine((c) => SUPPORTED_CURRENCY_CODES.includes(c), { message: 'Unknown currency code; send a {code, name, symbol, decimals} object' })
    .transform((c) => currency(c)),
  z.strictObject({
    code: z.string().regex(/^[A-Z]{3,4}$/, 'Must be an upper-case currency code'),
    name: text(),
    symbol: text(16),
    decimals: z.int().min(0).max(18),
  }),
]);

export const UmaProviderInput = z.strictObject({
  name: text(),
  domain: Domain,
  logoUrl: HttpUrl.optional(),
  supportedRegions: z.array(CountryCode).min(1).max(250),
  supportedCurrencies: z.array(ProviderCurrency).min(1).max(100),
  lei: z
    .string()
    .regex(/^[A-Z0-9]{18}[0-9]{2}$/, 'Must be a 20-character Legal Entity Identifier')
    .optional(),
  allowListStatus: z.boolean().default(true),
});
export type UmaProviderInput = z.infer<typeof UmaProviderInput>;

export const UmaProviderLoad = z
  .strictObject({
    providers: z
      .array(UmaProviderInput)
      .min(1)
      .max(500)
      .refine((list) => new Set(list.map((p) => p.domain.toLowerCase())).size === list.length, {
        message: 'Each domain may appear only once',
      }),
  })
  .meta({ id: 'UmaProviderLoadRequest', description: 'Providers to add or replace, keyed by domain' });

export const UmaProviderLoadResult = z.object({ created: z.int(), updated: z.int() }).meta({ id: 'UmaProviderLoadResponse' });
