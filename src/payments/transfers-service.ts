import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { transactions } from '../db/schema';
import { isUniqueViolation } from '../db/json-rows';
import { errorText } from '../ledger/ledger';
import type { Approval, ExternalAccountRow, InternalAccountRow, PlatformRow, TransactionRow } from '../db/schema';
import { newId } from '../crypto/ids';
import { invalidFields } from '../http/errors';
import { primaryIdentifier } from '../accounts/beneficiary';
import { loadExternalAccount } from '../accounts/external-service';
import { loadInternalAccount } from '../accounts/internal-service';
import { transferScenario } from './outcomes';
import { checkTransferPair, externalCounterparty, insufficientFunds, ownerOf, requireActiveExternal, requireActiveInternal } from './parties';
import { buildChange, commitChange, initiation, type PaymentDeps } from './state';
import { referenceFor } from './views';

export type Direction = 'IN' | 'OUT';

export interface TransferInput {
  /** transfer-out: the internal account; transfer-in: the external account. */
  sourceAccountId: string;
  destinationAccountId: string;
  amount: number;
}

interface Pair {
  internal: InternalAccountRow;
  external: ExternalAccountRow;
}

/** Loads and checks both accounts: same platform, active, same currency, same holder (spec 4.8). */
export async function transferPair(db: Db, platformId: string, direction: Direction, input: TransferInput): Promise<Pair> {
  const [internalId, externalId] = direction === 'OUT' ? [input.sourceAccountId, input.destinationAccountId] : [input.destinationAccountId, input.sourceAccountId];
  const [internalField, externalField] = direction === 'OUT' ? ['source.accountId', 'destination.accountId'] : ['destination.accountId', 'source.accountId'];
  const internal = await loadInternalAccount(db, platformId, internalId);
  const external = await loadExternalAccount(db, platformId, externalId);
  requireActiveInternal(internal);
  requireActiveExternal(external);
  checkTransferPair(internal, external, internalField, externalField);
  if (direction === 'OUT' && internal.type === 'EMBEDDED_WALLET') {
    // Money leaves an embedded wallet only under a session signature: the quote execute signed retry.
    throw invalidFields('request body', [
      { field: 'source.accountId', message: 'An EMBEDDED_WALLET pays out through a quote executed with a signed retry (POST /quotes/{quoteId}/execute)' },
    ]);
  }
  return { internal, external };
}

/** The transaction row of a transfer, in `status`, following spec 4.9's suffix table. */
async function transferRow(db: Db, platform: PlatformRow, direction: Direction, pair: Pair, amount: number, sandbox: boolean, now: number): Promise<TransactionRow> {
  const { internal, external } = pair;
  const id = newId('Transaction', now);
  const owner = await ownerOf(db, platform, internal.customerId);
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
    sourceAccountId: direction === 'OUT' ? internal.id : external.id,
    destinationAccountId: direction === 'OUT' ? external.id : internal.id,
    sentAmount: direction === 'OUT' ? amount : null,
    sentCurrency: direction === 'OUT' ? internal.currency : null,
    receivedAmount: amount,
    receivedCurrency: internal.currency,
    exchangeRate: null,
    fees: 0,
    rateDetails: null,
    quoteId: null,
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
    requestKey: null,
    approval: null,
    scenario: transferScenario(direction, primaryIdentifier(external).suffix, sandbox),
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * POST /transfer-in and /transfer-out: a same-currency move between an internal and an external account of
 * the same customer (or of the platform). The transaction is created already initiated: transfer-out
 * debits at once (a real shortfall is 400 INSUFFICIENT_FUNDS and records nothing); outcomes by suffix.
 */
export async function createTransfer(
  deps: PaymentDeps,
  platform: PlatformRow,
  direction: Direction,
  input: TransferInput,
  now: number,
  requestKey?: string,
): Promise<TransactionRow> {
  if (requestKey) {
    const earlier = await byRequestKey(deps.db, platform.id, requestKey);
    if (earlier) return earlier;
  }
  const pair = await transferPair(deps.db, platform.id, direction, input);
  const row = { ...(await transferRow(deps.db, platform, direction, pair, input.amount, deps.mode === 'sandbox', now)), requestKey: requestKey ?? null };
  const start = initiation(deps.db, row, now, deps.mode);
  const change = await buildChange(deps.db, row, start.hops, { now, mode: deps.mode, insert: true, transitions: start.transitions });
  let result: Awaited<ReturnType<typeof commitChange>>;
  try {
    result = await commitChange(deps, change);
  } catch (error) {
    // The same request committed concurrently (its retry raced the first attempt): that one is the answer.
    const earlier = requestKey && isUniqueViolation(errorText(error), 'transactions', 'request_key') ? await byRequestKey(deps.db, platform.id, requestKey) : undefined;
    if (earlier) return earlier;
    throw error;
  }
  if (result === 'insufficient_funds') throw insufficientFunds(pair.internal.id);
  if (result !== 'applied') throw new Error(`transfer not recorded: ${result}`);
  return change.row;
}

async function byRequestKey(db: Db, platformId: string, requestKey: string): Promise<TransactionRow | undefined> {
  const [row] = await db.select().from(transactions).where(and(eq(transactions.platformId, platformId), eq(transactions.requestKey, requestKey))).limit(1);
  return row;
}

/**
 * A transfer awaiting platform approval: recorded PENDING with the deferred action; nothing moves until
 * POST /transactions/{id}/approve initiates it.
 */
export async function createPendingTransfer(
  deps: PaymentDeps,
  platform: PlatformRow,
  direction: Direction,
  input: TransferInput,
  now: number,
  extra: { agentId?: string },
): Promise<TransactionRow> {
  const pair = await transferPair(deps.db, platform.id, direction, input);
  const row = await transferRow(deps.db, platform, direction, pair, input.amount, deps.mode === 'sandbox', now);
  const approval: Approval = {
    action: { type: direction === 'OUT' ? 'TRANSFER_OUT' : 'TRANSFER_IN', sourceAccountId: input.sourceAccountId, destinationAccountId: input.destinationAccountId, amount: input.amount, currency: pair.internal.currency },
    state: 'PENDING_APPROVAL',
    requestedAt: now,
  };
  const change = await buildChange(deps.db, { ...row, approval, agentId: extra.agentId ?? null }, [], { now, mode: deps.mode, insert: true });
  await commitChange(deps, change);
  return change.row;
}
