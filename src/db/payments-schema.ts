// The tables of money movement: quotes, transactions and their status history.
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { sameUuidId } from '../crypto/ids';
import { idKey } from './id-key';
import { packedHistory, packedJson, type StatusStep } from './packed-json';
import type { FailureReason, LockedSide, QuoteSourceType, RefundReason, RefundStatus, TransactionStatus, TransactionType } from './enums';

/**
 * Tables of money movement: quotes, transactions and each transaction's status history.
 * Re-exported by schema.ts; no foreign keys (accounts may be soft-deleted, the platform's data reset).
 */

export type { FailureReason, StatusStep, TransactionStatus, TransactionType };
/** What created the transaction; decides its sandbox plan and its shape. */
export type TransactionKind = 'QUOTE' | 'TRANSFER_IN' | 'TRANSFER_OUT' | 'UMA_RECEIVE';

/** Either end of a transaction, as the API shows it (`sourceType` / `destinationType` plus its fields). */
export type Endpoint = Record<string, unknown>;

export interface Refund {
  reference: string;
  initiatedAt: number;
  settledAt?: number;
  status: RefundStatus;
  reason: RefundReason;
}

/** The deferred action of a transaction awaiting platform approval (POST /transactions/{id}/approve). */
export type ApprovalAction =
  | { type: 'EXECUTE_QUOTE'; quoteId: string }
  | { type: 'TRANSFER_OUT' | 'TRANSFER_IN'; sourceAccountId: string; destinationAccountId: string; amount: number; currency: string }
  /** An incoming UMA payment the receiving platform approves by its webhook answer (src/payments/incoming-approval.ts). */
  | { type: 'INCOMING_PAYMENT' };

export interface Approval {
  action: ApprovalAction;
  state: 'PENDING_APPROVAL' | 'APPROVED' | 'REJECTED';
  requestedAt: number;
  decidedAt?: number;
  reason?: string;
  /** INCOMING_PAYMENT: when the payment fails undecided (platform time). */
  decideBy?: number;
  /** INCOMING_PAYMENT: when the platform answered 202 (it decides through the API). */
  acceptedAt?: number;
  /** INCOMING_PAYMENT: the receiver fields the sender asked for (`requestedReceiverCustomerInfoFields`). */
  requestedFields?: { name: string; mandatory: boolean }[];
  /** INCOMING_PAYMENT: what the platform gave on approval. */
  receiverCustomerInfo?: Record<string, unknown>;
  /** INCOMING_PAYMENT: the counterparty fields the platform's 422 named as missing. */
  requiredFields?: string[];
}

export const transactions = sqliteTable(
  'transactions',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    /** Null for the platform's own transactions (the API shows the platform id as customerId then). */
    customerId: text('customer_id'),
    platformCustomerId: text('platform_customer_id').notNull(),
    type: text('type').$type<TransactionType>().notNull(),
    kind: text('kind').$type<TransactionKind>().notNull(),
    status: text('status').$type<TransactionStatus>().notNull(),
    /** Bumped by every change, which commits only from the version it read: of two changes from v, one commits. */
    version: integer('version').notNull(),
    // The ends' account ids are generated columns read from these (`transactionAccounts`).
    source: packedJson<Endpoint>('source'),
    destination: packedJson<Endpoint>('destination').notNull(),
    sentAmount: integer('sent_amount'),
    sentCurrency: text('sent_currency'),
    receivedAmount: integer('received_amount').notNull(),
    receivedCurrency: text('received_currency').notNull(),
    exchangeRate: real('exchange_rate'),
    fees: integer('fees').notNull(),
    rateDetails: packedJson<Record<string, number>>('rate_details'),
    /**
     * The quote a row of a release before migration 0042 pays; NULL on later rows, whose quote shares their UUID
     * (`transactionQuoteId` reads both).
     */
    storedQuoteId: text('quote_id'),
    paymentInstructions: text('payment_instructions', { mode: 'json' }).$type<Record<string, unknown>[]>(),
    counterpartyInformation: packedJson<Record<string, string>>('counterparty_information'),
    description: text('description'),
    /** Reconciliation reference shown in reconciliationInstructions. */
    reference: text('reference').notNull(),
    /** UMA addresses of the two ends, when a UMA payment. */
    senderUmaAddress: text('sender_uma_address'),
    receiverUmaAddress: text('receiver_uma_address'),
    failureReason: text('failure_reason').$type<FailureReason>(),
    refund: text('refund', { mode: 'json' }).$type<Refund>(),
    settledAt: integer('settled_at'),
    /** Set when an agent initiated the transaction. */
    agentId: text('agent_id'),
    approval: text('approval', { mode: 'json' }).$type<Approval>(),
    /** The sandbox plan (outcome scenario) the transaction follows once initiated. */
    scenario: text('scenario'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /**
     * The statuses entered, one per version in order: [previous status (null for the first), status, time], stored
     * packed (`packSteps`: the previous status is the step before's). NULL on a
     * transaction of a release before migration 0033 not yet changed or converted: its history is in
     * `transaction_history` (payments/history.ts).
     */
    history: packedHistory('history'),
  },
  (t) => [
    // Fees are never negative; amounts are positive.
    check('transactions_fees_non_negative', sql`${t.fees} >= 0`),
    check('transactions_amounts_positive', sql`${t.receivedAmount} > 0 AND (${t.sentAmount} IS NULL OR ${t.sentAmount} > 0)`),
    // GET /transactions: one index per filter, platform first, then the filter, then the list's order
    // (createdAt; SQLite orders rows of one createdAt by id as it reads them, so the id, 48 bytes, stays out of
    // every entry), so a page reads about its rows. UMA addresses are searched through lower-cased
    // generated columns and their indexes (the custom migration `transactions_counts`: drizzle's updates would
    // write a generated column); the list's counts are kept by triggers there too.
    // Ids are keyed by 8 bytes of their UUID (id-key.ts; `idIs` queries them). drizzle-kit writes such an
    // expression's SQL wrong (it splits it at its commas): migration 0040 writes these indexes by hand.
    index('transactions_platform_idx').on(idKey(t.platformId), t.createdAt),
    index('transactions_customer_idx').on(idKey(t.platformId), idKey(t.customerId), t.createdAt),
    index('transactions_platform_customer_idx').on(idKey(t.platformId), t.platformCustomerId, t.createdAt),
    index('transactions_status_idx').on(idKey(t.platformId), t.status, t.createdAt),
    index('transactions_type_idx').on(idKey(t.platformId), t.type, t.createdAt),
    index('transactions_reference_idx').on(idKey(t.platformId), t.reference, t.createdAt),
    // The account filters' indexes, and the open transactions by destination, are on generated columns
    // (`transactionAccounts`): migration 0041 writes them.
    // Transactions still open (a few per customer at most): a customer's deletion checks none of its money is
    // in flight by reading these, not its history (src/customers/delete.ts writes the same literal list).
    index('transactions_open_customer_idx')
      .on(t.platformId, t.customerId, t.status)
      .where(sql`status IN ('CREATED', 'PENDING', 'PROCESSING')`),
  ],
);

/**
 * The quote a transaction pays (its `quoteId`), or null. A quote's transaction shares the quote's UUID
 * (`Quote:<u>`, `Transaction:<u>`), so new rows store no link; rows of earlier releases keep theirs in `quote_id`.
 * The triggers that keep a quote's status (migration 0042) read it the same way.
 */
export function transactionQuoteId(row: Pick<TransactionRow, 'id' | 'kind' | 'storedQuoteId'>): string | null {
  return row.storedQuoteId ?? (row.kind === 'QUOTE' ? sameUuidId('Quote', row.id) : null);
}

/**
 * The account ids of a transaction's ends (internal or external accounts; NULL for an end that names none), for
 * the account filters. Generated (VIRTUAL) from `source` and `destination` by migration 0041, so a payment
 * stores each id once; rows written before it keep theirs in the stored `source_account_id` and
 * `destination_account_id`, which the generated columns read first (new rows leave them NULL).
 */
export const transactionAccounts = {
  source: sql`${transactions}.source_account`,
  destination: sql`${transactions}.destination_account`,
};

/**
 * The status history of releases before migration 0033, one row per status entered. Written no more: a change
 * of such a transaction carries it into its `history`, and the cron sweep converts the rest in chunks
 * (payments/history.ts). A later release drops it once it is empty.
 */
export const transactionHistory = sqliteTable(
  'transaction_history',
  {
    transactionId: text('transaction_id').notNull(),
    version: integer('version').notNull(),
    platformId: text('platform_id').notNull(),
    fromStatus: text('from_status').$type<TransactionStatus>(),
    toStatus: text('to_status').$type<TransactionStatus>().notNull(),
    at: integer('at').notNull(),
  },
  // No platform index: the sandbox reset and snapshots find a platform's rows through its transactions (sandbox/reset.ts).
  (t) => [primaryKey({ columns: [t.transactionId, t.version] })],
);

/** A priced conversion; immutable once created. Its status is its transaction's (see quoteStatus). */
export const quotes = sqliteTable(
  'quotes',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    transactionId: text('transaction_id').notNull(),
    /** `ACCOUNT` (with its accountId) or `REALTIME_FUNDING` (paid to paymentInstructions). */
    sourceType: text('source_type').$type<QuoteSourceType>().notNull(),
    // The paying customer (null: the platform itself) and the source account are generated columns read
    // from this (`quoteParties`).
    source: packedJson<Endpoint>('source').notNull(),
    // Its account id and UMA address are generated columns, for the filters (migration 0041).
    destination: packedJson<Endpoint>('destination').notNull(),
    lockedSide: text('locked_side').$type<LockedSide>().notNull(),
    sendingCurrency: text('sending_currency').notNull(),
    receivingCurrency: text('receiving_currency').notNull(),
    totalSendingAmount: integer('total_sending_amount').notNull(),
    totalReceivingAmount: integer('total_receiving_amount').notNull(),
    exchangeRate: real('exchange_rate').notNull(),
    feesIncluded: integer('fees_included').notNull(),
    rateDetails: packedJson<Record<string, number>>('rate_details').notNull(),
    paymentInstructions: text('payment_instructions', { mode: 'json' }).$type<Record<string, unknown>[]>(),
    counterpartyInformation: packedJson<Record<string, string>>('counterparty_information'),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    // GET /quotes, as GET /transactions: per filter, platform first, then createdAt. The other filters read
    // columns outside this schema, each with its index: generated from the quote's ends (customer, source and
    // receiving accounts, receiving UMA address: migration 0041), or copied from its transaction by triggers
    // (sending UMA address, status: `quotes_counts`).
    index('quotes_platform_idx').on(idKey(t.platformId), t.createdAt),
  ],
);

/**
 * The quote's paying customer (NULL: the platform itself), source account, and the account or UMA address
 * (lower-cased) it pays, for the filters. Generated (VIRTUAL) from `source` and `destination` by migration 0041;
 * quotes written before it keep the customer and source account in the stored `customer_id` and
 * `source_account_id`, which the generated columns read first (new rows leave them NULL).
 */
export const quoteParties = {
  customer: sql`${quotes}.customer`,
  sourceAccount: sql`${quotes}.source_account`,
  receivingAccount: sql`${quotes}.receiving_account_id`,
  receivingUma: sql`${quotes}.receiving_uma_lc`,
};

/** The account an end names (`accountId`: an internal or external account), or null. */
export const endAccountId = (end: Endpoint | null): string | null => (typeof end?.accountId === 'string' ? end.accountId : null);

/** The customer a quote's source names (`customerId`), or null when the platform pays. */
export const quoteCustomerId = (quote: { source: Endpoint }): string | null =>
  typeof quote.source.customerId === 'string' ? quote.source.customerId : null;

/** What a receiver look-up found that a quote naming it uses: the payer fields it asks for. */
export interface RequiredPayerField {
  name: string;
  mandatory: boolean;
}

/**
 * A receiver look-up (GET /receiver/uma/{address}, GET /receiver/external-account/{id}): what was found about
 * the receiver, for the quote that names its id (`lookupId`) until `expiresAt`. Read by its id only; the
 * cron purges expired ones (by the expiry index), the sandbox reset by the platform's.
 */
export const receiverLookups = sqliteTable(
  'receiver_lookups',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    /** `UMA_ADDRESS` (receiver: the address, lower-cased with `$`) or `ACCOUNT` (receiver: the external account id). */
    receiverType: text('receiver_type').$type<'UMA_ADDRESS' | 'ACCOUNT'>().notNull(),
    receiver: text('receiver').notNull(),
    /** The sender: a customer of the platform, NULL for the platform itself. */
    customerId: text('customer_id'),
    /** The currencies the receiver accepts. */
    currencies: text('currencies', { mode: 'json' }).$type<string[]>().notNull(),
    requiredPayerFields: text('required_payer_fields', { mode: 'json' }).$type<RequiredPayerField[]>().notNull(),
    /** The receiver's name as its counterparty told it (UMA receivers), for the quote's counterpartyInformation. */
    receiverName: text('receiver_name'),
    expiresAt: integer('expires_at').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('receiver_lookups_expiry_idx').on(t.expiresAt),
    // The sandbox reset and snapshots take a platform's rows.
    index('receiver_lookups_platform_idx').on(t.platformId, t.expiresAt),
  ],
);
export type ReceiverLookupRow = typeof receiverLookups.$inferSelect;

export type TransactionRow = typeof transactions.$inferSelect;
export type TransactionHistoryRow = typeof transactionHistory.$inferSelect;
export type QuoteRow = typeof quotes.$inferSelect;
