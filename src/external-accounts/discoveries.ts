// The receiving institutions of the corridor catalogue, as GET /discoveries lists them (reference DiscoveryListResponse).
import * as z from 'zod';
import { CountryCode } from '../common/fields';
import { CurrencyCode } from '../common/currencies';
import { CORRIDORS } from './corridors/catalogue';
import type { Institution } from './corridors/define';

const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v);

export const DiscoveryQuery = z.object({
  country: z.preprocess(upper, CountryCode.optional()).meta({ description: 'ISO 3166-1 alpha-2 country code (any case), e.g. PH' }),
  currency: z.preprocess(upper, CurrencyCode.optional()).meta({ description: 'ISO 4217 currency code (any case), e.g. PHP' }),
});

export const Discovery = z
  .object({
    bankName: z
      .string()
      .meta({ description: 'Give it as accountInfo.bankName when creating an external account of this country and currency' }),
    displayName: z.string().meta({ description: 'The name people know the institution by' }),
    country: z.string().meta({ description: 'ISO 3166-1 alpha-2', example: 'PH' }),
    currency: z.string().meta({ description: 'ISO 4217', example: 'PHP' }),
  })
  .meta({ id: 'Discovery' });
type Discovery = z.infer<typeof Discovery>;

export const DiscoveryList = z
  .object({ data: z.array(Discovery).meta({ description: 'The institutions matching the filters, in catalogue order' }) })
  .meta({ id: 'DiscoveryListResponse' });

/** Every institution the corridors declare, with their corridor's country and currency: generated once. */
const ALL: readonly Discovery[] = CORRIDORS.flatMap((c) => {
  const list = ('institutions' in c ? c.institutions : undefined) as readonly Institution[] | undefined;
  return (list ?? []).map((i) => ({ bankName: i.bankName, displayName: i.displayName, country: c.countries![0]!, currency: c.currency! }));
});

/** The institutions of a country and currency (either or both; neither: all of them). */
export function discoveries(q: z.infer<typeof DiscoveryQuery>): { data: Discovery[] } {
  return { data: ALL.filter((d) => (!q.country || d.country === q.country) && (!q.currency || d.currency === q.currency)) };
}
