// How a corridor is declared: its schema, rails and the sandbox suffix of its identifier.
import * as z from 'zod';
import type { PaymentRail } from '../../common/payment-rails';

/**
 * The sandbox magic suffix of an identifier as typed: its last 3 characters when they are digits; for
 * identifiers with a domain part (`user102@domain`) the digits at the end of the username part.
 */
export function textSuffix(identifier: string): string | null {
  const at = identifier.lastIndexOf('@');
  const local = at >= 0 ? identifier.slice(0, at) : identifier;
  const suffix = local.slice(-3);
  return /^[0-9]{3}$/.test(suffix) ? suffix : null;
}

/**
 * The suffix of an encoded address: the last 3 decimal digits of its decoded value (big-endian digits in
 * `radix`). Base58 has no `0` and bech32 no `1`, so the text of a valid address can never end in `102`.
 */
export function payloadSuffix(values: ArrayLike<number> | null, radix: number): string | null {
  if (!values) return null;
  let n = 0;
  for (let i = 0; i < values.length; i++) n = (n * radix + values[i]!) % 1000;
  return String(n).padStart(3, '0');
}

/** An individual with every contact field a corridor may require, for the schemas' examples. */
const EXAMPLE_BENEFICIARY = {
  beneficiaryType: 'INDIVIDUAL',
  fullName: 'Jane Smith',
  phoneNumber: '+14155550192',
  countryOfResidence: 'US',
  address: { line1: '123 Main Street', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
};

interface CorridorSpec<T extends string, S extends z.ZodRawShape> {
  accountType: T;
  /** Schema name prefix: `Aed` gives `AedExternalAccountCreateInfo`, `AedExternalAccountInfo`, `AedBeneficiary`. */
  name: string;
  /** The currency the account holds; null: any fiat currency of the catalogue (SWIFT). */
  currency: string | null;
  /** Rails a payout to it can use, the first being the default (reference `{Name}AccountInfo.paymentRails`). */
  rails: readonly PaymentRail[];
  /** The countries whose accounts it holds (ISO 3166-1 alpha-2); absent: SWIFT (its `country` field) and wallets. */
  countries?: readonly string[];
  /** Fields that can hold the primary identifier, by preference; at least one is required. */
  identifier: readonly (keyof S & string)[];
  fields: S;
  /** Rules across fields, as zod issues on the field they concern. */
  check?: (info: Record<string, unknown>, ctx: z.RefinementCtx) => void;
  /** The sandbox suffix of an identifier when not its text (encoded addresses). */
  suffix?: (identifier: string) => string | null;
  /**
   * Institutions its accounts are held at, as GET /discoveries lists them: `bankName` is the value its own
   * `bankName` field takes (so only a corridor with that field, of one country and currency, lists any).
   */
  institutions?: readonly Institution[];
  /** Wallets: the chain a payout to one travels on, and what that costs there. */
  network?: NetworkFee;
  example: Record<string, unknown>;
}

/**
 * A wallet corridor's chain and the fee the chain charges for one withdrawal to it (POST
 * /crypto/estimate-withdrawal-fee): the typical cost of a token transfer there, fixed, so the sandbox is
 * deterministic; production needs a live fee source instead.
 */
export interface NetworkFee {
  /** The reference's `cryptoNetwork` name. */
  network: string;
  /** The asset the chain charges its fee in, and that asset's decimals. */
  feeAsset: string;
  feeAssetDecimals: number;
  /** The fee of one withdrawal, in the smallest unit of the fee asset (lamports, wei, sun, satoshis). */
  fee: number;
  /** USD per whole fee asset, when it is not the corridor's currency (a fixed sandbox price). */
  feeAssetUsd?: number;
}

/** A receiving institution of a corridor: the `bankName` to give, and the name people know it by. */
export interface Institution {
  bankName: string;
  displayName: string;
}

/** `[bankName, displayName]` pairs as institutions; a name given once is both. */
export const institutions = (...list: (string | [string, string])[]): Institution[] =>
  list.map((i) => (typeof i === 'string' ? { bankName: i, displayName: i } : { bankName: i[0], displayName: i[1] }));

/** A non-empty list of distinct values out of `values`. */
const choiceList = <V extends string>(values: readonly V[], what: string) =>
  z
    .array(z.enum(values as [V, ...V[]], { error: `Must be one of ${values.join(', ')}` }))
    .min(1, `Must list at least one ${what}`)
    .refine((list) => new Set(list).size === list.length, `Must not list a ${what} twice`);

/** The country an account's own fields place it in: its IBAN's country, else its region. */
function ownCountry(info: Record<string, unknown>): string | undefined {
  if (typeof info.iban === 'string') return info.iban.slice(0, 2);
  return typeof info.region === 'string' ? info.region : undefined;
}

/** A corridor: one external-account type with its schemas, primary identifier, rails and currency. */
export function corridor<const T extends string, S extends z.ZodRawShape>(spec: CorridorSpec<T, S>) {
  if (spec.institutions && !('bankName' in spec.fields && spec.countries?.length === 1 && spec.currency))
    throw new Error(`${spec.accountType}: institutions need a bankName field, one country and one currency`);
  const wallet = spec.rails.length === 0;
  const countries = spec.countries;
  // Clients generated from the service's newer OpenAPI send `paymentRails` and `countries` on creation:
  // honoured (the account is paid on those rails; it is in those countries), never required.
  const choices = {
    ...(wallet
      ? {}
      : {
          paymentRails: choiceList(spec.rails, 'rail')
            .optional()
            .meta({ description: 'The rails to pay this account on, the default first; omitted: every rail of its type' }),
        }),
    ...(countries
      ? { countries: choiceList(countries, 'country').optional().meta({ description: 'The countries of this account; omitted: derived' }) }
      : {}),
  };
  const base = z.object({ accountType: z.literal(spec.accountType), ...spec.fields, ...choices });
  const ids = spec.identifier;
  const create = base
    .superRefine((info, ctx) => {
      const fields = info as Record<string, unknown>;
      const present = ids.filter((f) => fields[f] !== undefined);
      if (present.length === 0) ctx.addIssue({ code: 'custom', path: [], message: `One of ${ids.join(', ')} is required` });
      const own = ownCountry(fields);
      if (own && countries && !countries.includes(own)) {
        ctx.addIssue({ code: 'custom', path: [fields.iban ? 'iban' : 'region'], message: `Must be in ${countries.join(', ')}` });
      } else if (own && Array.isArray(fields.countries) && !fields.countries.includes(own)) {
        ctx.addIssue({ code: 'custom', path: ['countries'], message: `Must include ${own}, the account's own country` });
      }
      spec.check?.(fields, ctx);
    })
    .meta({
      id: `${spec.name}${wallet ? 'ExternalAccountInfo' : 'ExternalAccountCreateInfo'}`,
      example: wallet ? spec.example : { ...spec.example, beneficiary: EXAMPLE_BENEFICIARY },
    });
  /** The rails an account with this info is paid on, the default first: the chosen ones, else the type's. */
  const railsOf = (info: Record<string, unknown>): readonly PaymentRail[] => (info.paymentRails as PaymentRail[] | undefined) ?? spec.rails;
  const view = wallet
    ? create
    : base
        .extend({
          paymentRails: z
            .array(z.enum(spec.rails as [PaymentRail, ...PaymentRail[]]))
            .meta({ description: 'The rails this account is paid on, the default first' }),
          ...(countries
            ? { countries: z.array(z.enum(countries as [string, ...string[]])).meta({ description: 'The countries of this account' }) }
            : {}),
        })
        .meta({ id: `${spec.name}ExternalAccountInfo` });
  return {
    ...spec,
    create,
    view,
    /** The field holding the primary identifier of this account info. */
    identifierField: (info: Record<string, unknown>) => ids.find((f) => info[f] !== undefined) ?? ids[0]!,
    suffixOf: spec.suffix ?? textSuffix,
    railsOf,
    /** What the view adds to stored info: its rails and countries (the chosen ones, else derived). */
    derived(info: Record<string, unknown>): Record<string, unknown> {
      if (wallet) return {};
      const own = ownCountry(info);
      // An account stored before its country was checked (an EUR IBAN outside SEPA) shows the type's.
      const shown = countries && ((info.countries as string[] | undefined) ?? (own && countries.includes(own) ? [own] : countries));
      return { paymentRails: [...railsOf(info)], ...(shown ? { countries: [...shown] } : {}) };
    },
  };
}
export type Corridor = ReturnType<typeof corridor<string, z.ZodRawShape>>;
