// Same-currency transfers: what they read, the checks, the transaction row, and the Change that records one.
import { and, eq, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import {
  customers,
  internalAccounts,
  type ExternalAccountRow,
  type InternalAccountRow,
  type PlatformRow,
  type TransactionRow,
} from '../db/schema';
import { newId } from '../crypto/ids';
import type { Change } from '../http/change';
import { invalidFields } from '../http/errors';
import { primaryIdentifier } from '../external-accounts/beneficiary';
import { externalAccountNotFound, liveExternalAccount } from '../external-accounts/service';
import { internalAccountNotFound } from '../accounts/internal-service';
import type { Rail } from './rail';
import {
  checkTransferPair,
  externalCounterparty,
  insufficientFunds,
  ownerFrom,
  requireActiveExternal,
  requireActiveInternal,
  type Owner,
} from './parties';
import { buildChange, changeOf, initiation, type PaymentDeps } from './transaction-change';
import { referenceFor, transactionView } from './views';
import type { TransactionView } from './schema';

export type Direction = 'IN' | 'OUT';

interface TransferInput {
  /** transfer-out: the internal account; transfer-in: the external account. */
  sourceAccountId: string;
  destinationAccountId: string;
  amount: number;
}

export interface Pair {
  internal: InternalAccountRow;
  external: ExternalAccountRow;
  /** Who the internal account belongs to (the transaction's owner). */
  owner: Owner;
}

/**
 * What a transfer reads (both accounts and the internal account's holder), named, for one round trip shared
 * with other loads (authentication's, an Idempotency-Key claim's). `platformId` is SQL: in an authentication
 * batch, the authenticated platform's id (NULL when authentication fails, so nothing is read).
 */
export function transferLoads(db: Db, platformId: SQL, direction: Direction, input: TransferInput) {
  const [internalId, externalId] =
    direction === 'OUT' ? [input.sourceAccountId, input.destinationAccountId] : [input.destinationAccountId, input.sourceAccountId];
  const internalWhere = and(eq(internalAccounts.id, internalId), eq(internalAccounts.platformId, platformId));
  return {
    internal: db.select().from(internalAccounts).where(internalWhere).limit(1),
    external: liveExternalAccount(db, platformId, externalId).limit(1),
    owner: db
      .select()
      .from(customers)
      .where(
        and(
          eq(customers.platformId, platformId),
          eq(customers.id, db.select({ id: internalAccounts.customerId }).from(internalAccounts).where(internalWhere)),
        ),
      )
      .limit(1),
  };
}
export type TransferLoaded = Loaded<ReturnType<typeof transferLoads>>;

/** Checks both accounts: found, active, same currency, same holder. */
export function checkedPair(platform: PlatformRow, direction: Direction, loaded: TransferLoaded): Pair {
  const [internal, external, customer] = [loaded.internal[0], loaded.external[0], loaded.owner[0]];
  const [internalField, externalField] =
    direction === 'OUT' ? ['source.accountId', 'destination.accountId'] : ['destination.accountId', 'source.accountId'];
  if (!internal) throw internalAccountNotFound();
  if (!external) throw externalAccountNotFound();
  requireActiveInternal(internal);
  requireActiveExternal(external);
  checkTransferPair(internal, external, internalField, externalField);
  if (direction === 'OUT' && internal.type === 'EMBEDDED_WALLET') {
    // Money leaves an embedded wallet only under a session signature: the quote execute signed retry.
    throw invalidFields('request body', [
      {
        field: 'source.accountId',
        message: 'An EMBEDDED_WALLET pays out through a quote executed with a signed retry (POST /quotes/{quoteId}/execute)',
      },
    ]);
  }
  return { internal, external, owner: ownerFrom(platform, internal.customerId, customer) };
}

/** The transaction row of a transfer, bound to `rail` (in the sandbox, by the suffix table; 503 without a rail). */
export function transferRow(
  platform: PlatformRow,
  direction: Direction,
  pair: Pair,
  amount: number,
  rail: Rail,
  now: number,
): TransactionRow {
  const { internal, external, owner } = pair;
  const id = newId('Transaction', now);
  const internalEnd = { accountId: internal.id, currency: internal.currency };
  const externalEnd = { accountId: external.id, currency: external.currency };
  return {
    id,
    platformId: platform.id,
    customerId: internal.customerId,
    platformCustomerId: owner.platformCustomerId,
    type: direction === 'OUT' ? 'OUTGOING' : 'INCOMING',
    kind: direction === 'OUT' ? 'TRANSFER_OUT' : 'TRANSFER_IN',
    status: 'PENDING',
    version: 0,
    source: { sourceType: 'ACCOUNT', ...(direction === 'OUT' ? internalEnd : externalEnd) },
    destination: { destinationType: 'ACCOUNT', ...(direction === 'OUT' ? externalEnd : internalEnd) },
    sentAmount: direction === 'OUT' ? amount : null,
    sentCurrency: direction === 'OUT' ? internal.currency : null,
    receivedAmount: amount,
    receivedCurrency: internal.currency,
    exchangeRate: null,
    fees: 0,
    rateDetails: null,
    storedQuoteId: null,
    paymentInstructions: null,
    counterpartyInformation: externalCounterparty(external),
    description: null,
    reference: referenceFor('TX', id),
    senderUmaAddress: null,
    receiverUmaAddress: null,
    failureReason: null,
    refund: null,
    settledAt: null,
    agentId: null,
    approval: null,
    scenario: rail.scenario(direction === 'OUT' ? 'TRANSFER_OUT' : 'TRANSFER_IN', primaryIdentifier(external).suffix),
    createdAt: now,
    updatedAt: now,
    history: null,
  };
}

/**
 * POST /transfer-in and /transfer-out: a same-currency move between an internal and an external account of
 * the same customer (or of the platform), as the Change that records it already initiated: transfer-out
 * debits at once (a real shortfall is 400 INVALID_AMOUNT (INSUFFICIENT_FUNDS) and records nothing); outcomes by suffix. Its
 * answer is the transaction, 201.
 */
export async function transferChange(
  deps: PaymentDeps,
  platform: PlatformRow,
  direction: Direction,
  amount: number,
  /** The accounts, read (`transferLoads`) and checked (`checkedPair`). */
  pair: Pair,
  now: number,
): Promise<Change<TransactionView>> {
  const row = transferRow(platform, direction, pair, amount, deps.rail, now);
  const start = initiation(deps.db, row, now, deps.mode);
  // The internal account was just read: its balance event needs no second read.
  const draft = await buildChange(deps.db, row, start.hops, {
    now,
    mode: deps.mode,
    insert: true,
    transitions: start.transitions,
    accounts: [pair.internal],
  });
  return changeOf(draft, { status: 201, body: transactionView(draft.row) }, { shortfall: insufficientFunds(pair.internal.id) });
}
