// Receiver look-ups: the sender, the receiver's currencies priced within the quotes' limits, the payer data it
// asks, the stored look-up a quote names (`lookupId`), and its purge.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import {
  customers,
  receiverLookups,
  umaAddressIs,
  type CustomerRow,
  type PlatformRow,
  type ReceiverLookupRow,
  type RequiredPayerField,
} from '../db/schema';
import type { CurrencyConfig } from '../db/json-shapes';
import { currency, currencyInfo } from '../common/currencies';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { badRequest, invalidFields, notFound, type FieldIssue } from '../http/errors';
import { liveExternalAccount } from '../external-accounts/service';
import { customerDeleted, customerNotFound } from '../customers/service';
import { computeExchange, type MidMarket } from './rates';
import type { CurrencyPreference, LookupAnswer, LookupQuery } from './lookups-schema';

/**
 * How long a look-up can be quoted with: its estimates come from one 5-minute rate window (the quote prices
 * anew), so it lasts three, long enough to fill in a payment form, short enough that what the receiver
 * asked is recent. Expired ones are purged by the cron sweep.
 */
export const LOOKUP_TTL_MS = 15 * 60_000;

export const lookupNotFound = () =>
  notFound('LOOKUP_REQUEST_NOT_FOUND', 'Look-up not found: unknown, expired (look-ups last 15 minutes) or of another platform');

/**
 * What a look-up reads, as loads for authentication's round trip (`platformId` SQL: see `RouteSpec.load`):
 * the sender by id or by UMA address (each one index probe), and the external account looked up, if any.
 */
export function lookupLoads(db: Db, platformId: SQL, query: LookupQuery, accountId = '') {
  const customer = (which: SQL) =>
    db
      .select()
      .from(customers)
      .where(and(eq(customers.platformId, platformId), which))
      .limit(1);
  return {
    senderById: customer(eq(customers.id, query.customerId ?? '')),
    // Without an address, a primary-key probe that finds nothing (never a scan).
    senderByUma: customer(query.senderUmaAddress ? umaAddressIs(query.senderUmaAddress) : eq(customers.id, '')),
    account: liveExternalAccount(db, platformId, accountId).limit(1),
  };
}
export type LookupLoaded = Loaded<ReturnType<typeof lookupLoads>>;

/**
 * The sender the query names: a customer (by id or UMA address; both must name the same one), or the platform
 * itself (its own id as `customerId`). One of the two is required, as the reference has it.
 */
export function lookupSender(platform: PlatformRow, query: LookupQuery, loaded: LookupLoaded): CustomerRow | null {
  if (query.customerId === undefined && query.senderUmaAddress === undefined) {
    const message = 'One of customerId or senderUmaAddress is required: who sends';
    throw invalidFields('query parameters', [
      { field: 'customerId', message },
      { field: 'senderUmaAddress', message },
    ]);
  }
  let byId: CustomerRow | null | undefined;
  if (query.customerId !== undefined && query.customerId !== platform.id) {
    byId = loaded.senderById[0];
    if (!byId) throw customerNotFound();
    if (byId.isDeleted) throw customerDeleted();
  } else if (query.customerId !== undefined) byId = null;
  if (query.senderUmaAddress === undefined) return byId ?? null;
  const byUma = loaded.senderByUma[0];
  if (!byUma) throw notFound('USER_NOT_FOUND', `No customer of the platform has the UMA address ${query.senderUmaAddress}`);
  if (byId !== undefined && byId?.id !== byUma.id)
    throw invalidFields('query parameters', [{ field: 'senderUmaAddress', message: 'Is not the UMA address of customerId' }]);
  return byUma;
}

/**
 * The currency the sender's estimates are from: its first of the platform's currencies with OUTGOING enabled
 * (the platform's first such currency when the sender is the platform, or uses none of them).
 */
function sendingConfig(platform: PlatformRow, sender: CustomerRow | null): CurrencyConfig {
  const outgoing = platform.supportedCurrencies.filter((c) => c.enabledTransactionTypes.includes('OUTGOING'));
  const config = outgoing.find((c) => sender?.currencies.includes(c.currencyCode)) ?? outgoing[0];
  if (!config) throw badRequest('The platform has no currency with OUTGOING payments enabled (PATCH /config supportedCurrencies)');
  return config;
}

/**
 * One accepted currency as a quote would price it now (`computeExchange`, the quotes' rates and fees): the rate
 * from the sending currency, and the least and most a quote can deliver while its sending amount stays within
 * the platform's minAmount and maxAmount (deliveries grow with the amount sent). Null when even maxAmount
 * cannot cover the fees.
 */
function preference(platform: PlatformRow, config: CurrencyConfig, receiving: string, rates: MidMarket): CurrencyPreference | null {
  const at = (amount: number) =>
    computeExchange(platform, { sendingCurrency: config.currencyCode, receivingCurrency: receiving, amount, lockedSide: 'SENDING' }, rates);
  const most = at(config.maxAmount);
  const min = Math.max(1, at(config.minAmount).totalReceivingAmount);
  if (most.totalReceivingAmount < min) return null;
  return { currency: currency(receiving), estimatedExchangeRate: most.exchangeRate, min, max: most.totalReceivingAmount };
}

/**
 * The counterparty fields the service holds about a sender, from its registration (an individual's name, birth
 * date, nationality and address; a business's legal name, tax id and registration number; an e-mail), or
 * the platform's name when it sends itself.
 */
function heldAbout(sender: CustomerRow | null): Set<string> {
  if (!sender) return new Set(['FULL_NAME']);
  const info = sender.info as {
    fullName?: string;
    birthDate?: string;
    nationality?: string;
    address?: unknown;
    businessInfo?: { legalName?: string; taxId?: string; registrationNumber?: string };
  };
  const held: [string, unknown][] = [
    ['FULL_NAME', info.fullName ?? info.businessInfo?.legalName],
    ['BIRTH_DATE', info.birthDate],
    ['NATIONALITY', info.nationality],
    ['POSTAL_ADDRESS', info.address],
    ['TAX_ID', info.businessInfo?.taxId],
    ['REGISTRATION_NUMBER', info.businessInfo?.registrationNumber],
    ['EMAIL', sender.email],
  ];
  return new Set(held.filter(([, value]) => value !== undefined && value !== null && value !== '').map(([name]) => name));
}

/**
 * What the receiver needs about the payer that the service does not hold (reference `requiredPayerDataFields`:
 * beyond what customer registration gave): the counterparty fields of each currency it accepts
 * (`providerRequiredCounterpartyCustomerFields`) missing from the sender's registration, each mandatory.
 */
function payerFieldsAsked(currencies: string[], sender: CustomerRow | null): RequiredPayerField[] {
  const held = heldAbout(sender);
  const asked = new Set(currencies.flatMap((code) => currencyInfo(code).counterpartyFields));
  return [...asked].filter((name) => !held.has(name)).map((name) => ({ name, mandatory: true }));
}

/** What a look-up found about its receiver. */
export interface FoundReceiver {
  receiverType: ReceiverLookupRow['receiverType'];
  receiver: string;
  currencies: string[];
  receiverName?: string;
}

/**
 * Stores the look-up of `found` for `sender` (one write) and answers it: each accepted currency priced for
 * the sender, the payer data the receiver asks that the service does not hold (`payerFieldsAsked`), the
 * `lookupId` and its expiry.
 */
export async function recordLookup(
  db: Db,
  platform: PlatformRow,
  sender: CustomerRow | null,
  found: FoundReceiver,
  rates: MidMarket,
  now: number,
): Promise<LookupAnswer> {
  const config = sendingConfig(platform, sender);
  const supportedCurrencies = found.currencies
    .map((code) => preference(platform, config, code, rates))
    .filter((p): p is CurrencyPreference => p !== null);
  const row: ReceiverLookupRow = {
    id: newId('LookupRequest', now),
    platformId: platform.id,
    receiverType: found.receiverType,
    receiver: found.receiver,
    customerId: sender?.id ?? null,
    currencies: found.currencies,
    requiredPayerFields: payerFieldsAsked(found.currencies, sender),
    receiverName: found.receiverName ?? null,
    expiresAt: now + LOOKUP_TTL_MS,
    createdAt: now,
  };
  await db.insert(receiverLookups).values(row);
  return {
    supportedCurrencies,
    requiredPayerDataFields: row.requiredPayerFields as LookupAnswer['requiredPayerDataFields'],
    lookupId: row.id,
    expiresAt: iso(row.expiresAt),
  };
}

/** The look-up a quote names, as a load for authentication's round trip: one primary-key probe. */
export function quoteLookupLoad(db: Db, platformId: SQL, lookupId: string | undefined) {
  return db
    .select()
    .from(receiverLookups)
    .where(and(eq(receiverLookups.id, lookupId ?? ''), eq(receiverLookups.platformId, platformId)))
    .limit(1);
}

/** What a quote naming a look-up must agree with. */
interface QuoteSide {
  receiverType: ReceiverLookupRow['receiverType'];
  receiver: string;
  /** The sender: the quote's customer, null for the platform's own. */
  customerId: string | null;
  receivingCurrency: string;
  senderCustomerInfo?: Record<string, unknown>;
  purposeOfPayment?: string;
}

/** The look-up a quote names, as `quoteLookupLoad` read it: 404 LOOKUP_REQUEST_NOT_FOUND when none, or expired at `now`. */
export function usableLookup(lookup: ReceiverLookupRow | undefined, now: number): ReceiverLookupRow {
  if (!lookup || lookup.expiresAt <= now) throw lookupNotFound();
  return lookup;
}

/**
 * Checks the quote against the look-up it names: 400 when it looked up another receiver or sender, or the
 * quote's currency is not one the receiver accepts; 400 naming each mandatory payer field the receiver asked
 * for that `senderCustomerInfo` (or `purposeOfPayment`) does not give.
 */
export function checkQuoteLookup(lookup: ReceiverLookupRow, quote: QuoteSide): void {
  const issues: FieldIssue[] = [];
  const what = (type: string, receiver: string) => (type === 'UMA_ADDRESS' ? `UMA address ${receiver}` : `account ${receiver}`);
  if (lookup.receiverType !== quote.receiverType || lookup.receiver !== quote.receiver)
    issues.push({
      field: 'lookupId',
      message: `Looked up the ${what(lookup.receiverType, lookup.receiver)}, not the quote's destination (${what(quote.receiverType, quote.receiver)})`,
    });
  else if (lookup.customerId !== quote.customerId)
    issues.push({
      field: 'lookupId',
      message: `Was made for another sender (${lookup.customerId ?? 'the platform'}); the quote is paid by ${quote.customerId ?? 'the platform'}`,
    });
  else if (!lookup.currencies.includes(quote.receivingCurrency))
    issues.push({ field: 'destination.currency', message: `The receiver accepts ${lookup.currencies.join(', ')}` });
  if (issues.length) throw invalidFields('request body', issues);
  const given = (name: string) => {
    const value =
      name === 'PURPOSE_OF_PAYMENT' ? (quote.purposeOfPayment ?? quote.senderCustomerInfo?.[name]) : quote.senderCustomerInfo?.[name];
    return value !== undefined && value !== null && value !== '';
  };
  const missing = lookup.requiredPayerFields.filter((f) => f.mandatory && !given(f.name));
  if (missing.length)
    throw invalidFields(
      'request body',
      missing.map((f) => ({
        field: `senderCustomerInfo.${f.name}`,
        message: `Required by the receiver (the look-up's requiredPayerDataFields)${f.name === 'PURPOSE_OF_PAYMENT' ? '; purposeOfPayment also gives it' : ''}`,
      })),
    );
}

/**
 * Cron retention: deletes up to `limit` look-ups past their expiry, oldest first through the expiry index, so
 * a tick costs what it deletes. Stored times are platform times (never behind the wall clock), so this never
 * purges one early.
 */
export async function purgeExpiredLookups(db: Db, realNow: number, limit = 500): Promise<void> {
  await db.run(
    sql`DELETE FROM ${receiverLookups} WHERE rowid IN (SELECT rowid FROM ${receiverLookups} WHERE ${receiverLookups.expiresAt} <= ${realNow} ORDER BY ${receiverLookups.expiresAt} LIMIT ${limit})`,
  );
}
