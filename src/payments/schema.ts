// The request and response schemas of quotes, transfers and transactions, in the reference's shapes.
import * as z from 'zod';
import { FailureReason, LockedSide, QuoteSourceType, RefundReason, RefundStatus, TransactionStatus, TransactionType } from '../db/enums';
import { Currency, CurrencyCode } from '../common/currencies';
import { DateTime, DateTimeParam } from '../common/time';
import { cursorParam, limitParam, pageOf, sortOrderParam } from '../http/pagination';
import { CurrencyAmount, PaymentInstructions } from '../accounts/internal-schema';
import { PaymentRail, RateDetails } from './rates-schema';
import { CounterpartyFieldDefinition } from '../platform/schema';

const Id = (example: string) => z.string().max(128).meta({ example });
const Amount = z
  .int({ error: 'Must be an integer' })
  .positive()
  .max(9_000_000_000_000_000)
  .meta({ description: 'Smallest unit of the currency (cents for USD)' });

/** Where a payment goes: an account (internal or external) or a UMA address. */
const DestinationType = z.enum(['ACCOUNT', 'UMA_ADDRESS']);

export const TransactionSource = z
  .object({
    sourceType: z.enum(['ACCOUNT', 'UMA_ADDRESS', 'REALTIME_FUNDING']),
    accountId: z.string().optional().meta({ description: 'ACCOUNT: the internal or external account paying' }),
    umaAddress: z.string().optional().meta({ description: 'UMA_ADDRESS: the sender' }),
    customerId: z.string().optional().meta({ description: 'REALTIME_FUNDING: the customer paying, when not the platform' }),
    currency: z.string(),
  })
  .meta({ id: 'TransactionSource' });

export const TransactionDestination = z
  .object({
    destinationType: DestinationType,
    accountId: z.string().optional(),
    umaAddress: z.string().optional(),
    currency: z.string(),
  })
  .meta({ id: 'TransactionDestination' });

export const ReconciliationInstructions = z
  .object({ reference: z.string(), transactionHash: z.string().optional().meta({ description: 'Crypto destinations, once settled' }) })
  .meta({ id: 'ReconciliationInstructions' });

export const Refund = z
  .object({
    reference: z.string(),
    initiatedAt: DateTime,
    settledAt: DateTime.optional(),
    status: RefundStatus,
    reason: RefundReason,
  })
  .meta({ id: 'Refund' });

export const IncomingRateDetails = z
  .object({
    serviceApiMultiplier: z.number().positive(),
    serviceApiFixedFee: z.int().min(0),
    serviceApiVariableFeeRate: z.number().min(0),
    serviceApiVariableFeeAmount: z.int().min(0),
  })
  .meta({ id: 'IncomingRateDetails' });

const common = {
  id: z.string().meta({ example: 'Transaction:019542f5-b3e7-1d02-0000-000000000005' }),
  status: TransactionStatus,
  destination: TransactionDestination,
  source: TransactionSource.optional(),
  customerId: z.string().meta({ description: 'The customer concerned; the platform id for the platform’s own transactions' }),
  platformCustomerId: z.string(),
  settledAt: DateTime.optional().meta({ description: 'When the payment was settled' }),
  createdAt: DateTime,
  updatedAt: DateTime,
  agentId: z.string().optional().meta({ description: 'Set when an agent initiated the transaction' }),
  description: z.string().optional(),
  counterpartyInformation: z
    .record(z.string(), z.string())
    .optional()
    .meta({ description: 'Counterparty field name (FULL_NAME, ...) to value' }),
  reconciliationInstructions: ReconciliationInstructions.optional().meta({ description: 'On every transaction except CREATED ones' }),
  failureReason: FailureReason.optional(),
  senderUmaAddress: z.string().optional(),
  receiverUmaAddress: z.string().optional(),
  pendingPlatformApproval: z
    .boolean()
    .optional()
    .meta({ description: 'True while the transaction waits for POST /transactions/{id}/approve or /reject' }),
};

export const IncomingTransaction = z
  .object({
    ...common,
    type: z.literal('INCOMING'),
    receivedAmount: CurrencyAmount,
    fees: z.int().min(0).optional().meta({ description: 'Smallest unit of the receiving currency' }),
    rateDetails: IncomingRateDetails.optional(),
  })
  .meta({ id: 'IncomingTransaction' });

export const OutgoingTransaction = z
  .object({
    ...common,
    type: z.literal('OUTGOING'),
    source: TransactionSource,
    sentAmount: CurrencyAmount,
    receivedAmount: CurrencyAmount.optional(),
    exchangeRate: z.number().positive().optional().meta({ description: 'Receiving-currency major units per sending-currency major unit' }),
    fees: z.int().min(0).optional().meta({ description: 'Smallest unit of the sending currency' }),
    quoteId: z.string().optional(),
    paymentInstructions: z.array(PaymentInstructions).optional(),
    refund: Refund.optional(),
    rateDetails: RateDetails.optional(),
  })
  .meta({ id: 'OutgoingTransaction' });

/** The `data` of INCOMING_PAYMENT.* webhooks: the transaction, and on an approval request what the sender asks. */
export const IncomingPaymentWebhookData = IncomingTransaction.extend({
  requestedReceiverCustomerInfoFields: z.array(CounterpartyFieldDefinition).optional().meta({
    description:
      'INCOMING_PAYMENT.PENDING approval request only: information about the recipient the sender asks for, beyond what customer registration gave; answer 200 with `receiverCustomerInfo` holding them (a mandatory one missing fails the payment, MISSING_MANDATORY_PAYEE_DATA)',
  }),
}).meta({ id: 'IncomingPaymentWebhookData' });

export const Transaction = z.discriminatedUnion('type', [IncomingTransaction, OutgoingTransaction]).meta({ id: 'TransactionOneOf' });
export type TransactionView = z.infer<typeof IncomingTransaction> | z.infer<typeof OutgoingTransaction>;

export const TransactionList = pageOf(Transaction, 'TransactionListResponse');

const AccountIdentifierParam = z.string().min(1).max(320).optional();

export const TransactionListQuery = z.object({
  customerId: z
    .string()
    .max(128)
    .optional()
    .meta({ description: 'A customer id; the platform id selects the platform’s own transactions' }),
  platformCustomerId: z.string().max(128).optional(),
  accountIdentifier: AccountIdentifierParam.meta({
    description: 'Sender or receiver: an internal or external account id, or a UMA address',
  }),
  senderAccountIdentifier: AccountIdentifierParam.meta({ description: 'Sender: the source account id, or the sending UMA address' }),
  receiverAccountIdentifier: AccountIdentifierParam.meta({
    description: 'Receiver: the destination account id, or the receiving UMA address',
  }),
  status: TransactionStatus.optional(),
  type: TransactionType.optional(),
  reference: z.string().max(128).optional(),
  startDate: DateTimeParam.meta({ description: 'Created at or after (ISO 8601)' }),
  endDate: DateTimeParam.meta({ description: 'Created at or before (ISO 8601)' }),
  sortOrder: sortOrderParam,
  limit: limitParam,
  cursor: cursorParam,
});
export type TransactionListQuery = z.infer<typeof TransactionListQuery>;

export const TransactionIdParams = z.object({ transactionId: z.string().max(128) });

export const TransactionStatusChange = z
  .object({
    status: TransactionStatus.meta({ description: 'The status the transaction entered' }),
    previousStatus: TransactionStatus.optional().meta({ description: 'The status it left (absent for the first)' }),
    changedAt: DateTime.meta({ description: "When, on the platform's clock (the sandbox clock included)" }),
  })
  .meta({ id: 'TransactionStatusChange' });
export type TransactionStatusChange = z.infer<typeof TransactionStatusChange>;

export const TransactionHistory = z
  .object({ data: z.array(TransactionStatusChange).meta({ description: 'Every status change, oldest first' }) })
  .meta({ id: 'TransactionHistory' });

export const ApproveRequest = z
  .strictObject({ receiverCustomerInfo: z.record(z.string(), z.unknown()).optional() })
  .meta({ id: 'ApprovePaymentRequest' });
export const RejectRequest = z.strictObject({ reason: z.string().trim().min(1).max(1000).optional() }).meta({ id: 'RejectPaymentRequest' });

// --- quotes ---

/** Crypto networks (reference `cryptoNetwork` example values). */
export const CryptoNetwork = z
  .enum(['SOLANA', 'ETHEREUM', 'BASE', 'POLYGON', 'SPARK', 'LIGHTNING', 'BITCOIN'])
  .meta({ id: 'CryptoNetwork' });
export type CryptoNetwork = z.infer<typeof CryptoNetwork>;

export const QuoteSourceRequest = z
  .discriminatedUnion('sourceType', [
    z.strictObject({
      sourceType: z.literal('ACCOUNT'),
      accountId: Id('InternalAccount:019542f5-b3e7-1d02-0000-000000000001').meta({
        description: 'An internal account (EMBEDDED_WALLET included)',
      }),
      customerId: z.string().max(128).optional(),
    }),
    z.strictObject({
      sourceType: z.literal('REALTIME_FUNDING'),
      customerId: z.string().max(128).optional().meta({ description: 'The customer paying; omitted means the platform' }),
      currency: CurrencyCode,
      cryptoNetwork: CryptoNetwork.optional().meta({
        description: 'Crypto currencies only: the network the payer deposits on; required for stablecoins (USDC)',
      }),
    }),
  ])
  .meta({ id: 'QuoteSource' });

export const UmaAddressField = z
  .string()
  .trim()
  .max(320)
  .regex(/^\$?[a-zA-Z0-9._+-]{1,64}@[a-zA-Z0-9.-]{1,253}$/, 'Must be a UMA address such as $alice@uma.example.com')
  .transform((a) => (a.startsWith('$') ? a : `$${a}`).toLowerCase())
  .meta({ example: '$success.usd@sandbox.uma.test' });

export const QuoteDestinationRequest = z
  .discriminatedUnion('destinationType', [
    z.strictObject({
      destinationType: z.literal('ACCOUNT'),
      accountId: Id('ExternalAccount:019542f5-b3e7-1d02-0000-000000000002').meta({ description: 'An external or internal account' }),
      paymentRail: PaymentRail.optional(),
    }),
    z.strictObject({
      destinationType: z.literal('UMA_ADDRESS'),
      umaAddress: UmaAddressField,
      currency: CurrencyCode.optional().meta({ description: "Defaults to the receiver's currency" }),
    }),
  ])
  .meta({ id: 'QuoteDestination' });

export const QuoteRequest = z
  .strictObject({
    lookupId: z.string().max(128).optional().meta({
      description:
        'A look-up of this destination for this sender (GET /receiver/uma/{address} or /receiver/external-account/{id}), before it expires: the quote must give, in senderCustomerInfo, the mandatory requiredPayerDataFields it named. Optional: without one the quote resolves the receiver itself',
      example: 'LookupRequest:019542f5-b3e7-1d02-0000-000000000009',
    }),
    source: QuoteSourceRequest,
    destination: QuoteDestinationRequest,
    lockedCurrencySide: LockedSide,
    lockedCurrencyAmount: Amount,
    immediatelyExecute: z.boolean().optional().meta({ description: 'Execute at once (internal, non-wallet sources only)' }),
    description: z.string().trim().max(1000).optional(),
    purposeOfPayment: z
      .enum([
        'GIFT',
        'SELF',
        'GOODS_OR_SERVICES',
        'EDUCATION',
        'HEALTH_OR_MEDICAL',
        'REAL_ESTATE_PURCHASE',
        'TAX_PAYMENT',
        'LOAN_PAYMENT',
        'UTILITY_BILL',
        'DONATION',
        'TRAVEL',
        'OTHER',
      ])
      .optional(),
    senderCustomerInfo: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "What the receiver asked about the payer (the look-up's requiredPayerDataFields), by field name" }),
  })
  .meta({ id: 'QuoteRequest' });
export type QuoteRequest = z.infer<typeof QuoteRequest>;

const UmaAddressFilter = z.string().min(1).max(320).optional();

export const QuoteStatus = z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED']).meta({ id: 'QuoteStatus' });
export type QuoteStatus = z.infer<typeof QuoteStatus>;

export const Quote = z
  .object({
    id: z.string().meta({ example: 'Quote:019542f5-b3e7-1d02-0000-000000000006' }),
    status: QuoteStatus,
    createdAt: DateTime,
    expiresAt: DateTime.meta({ description: 'After this the quote cannot be executed (its transaction ends EXPIRED)' }),
    source: z
      .object({
        sourceType: QuoteSourceType,
        accountId: z.string().optional(),
        customerId: z.string().optional(),
        currency: z.string().optional(),
        cryptoNetwork: CryptoNetwork.optional().meta({ description: 'REALTIME_FUNDING in a crypto currency: the network paid on' }),
      })
      .meta({ id: 'QuoteSourceView' }),
    destination: z
      .object({
        destinationType: DestinationType,
        accountId: z.string().optional(),
        umaAddress: z.string().optional(),
        currency: z.string().optional(),
        paymentRail: PaymentRail.optional(),
      })
      .meta({ id: 'QuoteDestinationView' }),
    sendingCurrency: Currency,
    receivingCurrency: Currency,
    totalSendingAmount: z.int().positive(),
    totalReceivingAmount: z.int().positive(),
    exchangeRate: z.number().positive().meta({ description: 'Receiving-currency major units per sending-currency major unit' }),
    feesIncluded: z.int().min(0).meta({ description: 'Smallest unit of the sending currency' }),
    paymentInstructions: z.array(PaymentInstructions).optional().meta({ description: 'REALTIME_FUNDING only: where to pay' }),
    transactionId: z.string(),
    counterpartyInformation: z.record(z.string(), z.string()).optional(),
    rateDetails: RateDetails,
  })
  .meta({ id: 'Quote' });
export type QuoteView = z.infer<typeof Quote>;

export const QuoteIdParams = z.object({ quoteId: z.string().max(128) });

export const QuoteListQuery = z.object({
  customerId: z
    .string()
    .max(128)
    .optional()
    .meta({ description: 'The sending customer; the platform id selects the platform’s own quotes' }),
  sendingAccountId: z.string().max(128).optional().meta({ description: 'The internal account paying (ACCOUNT sources)' }),
  receivingAccountId: z.string().max(128).optional().meta({ description: 'The internal or external account paid (ACCOUNT destinations)' }),
  sendingUmaAddress: UmaAddressFilter.meta({ description: 'The sender’s UMA address (UMA payments; any case)' }),
  receivingUmaAddress: UmaAddressFilter.meta({ description: 'The receiving UMA address (UMA_ADDRESS destinations; any case)' }),
  status: QuoteStatus.optional().meta({
    description: 'The status GET /quotes/{quoteId} shows: a PENDING quote past its expiresAt is EXPIRED',
  }),
  createdAfter: DateTimeParam.meta({ description: 'Created at or after (ISO 8601)' }),
  createdBefore: DateTimeParam.meta({ description: 'Created at or before (ISO 8601)' }),
  limit: limitParam,
  cursor: cursorParam,
});
export type QuoteListQuery = z.infer<typeof QuoteListQuery>;

export const QuoteList = pageOf(Quote, 'QuoteListResponse');

// --- transfers ---

const ExternalAccountReference = z
  .strictObject({ accountId: Id('ExternalAccount:e85dcbd6-dced-4ec4-b756-3c3a9ea3d965') })
  .meta({ id: 'ExternalAccountReference' });
const InternalAccountReference = z
  .strictObject({ accountId: Id('InternalAccount:a12dcbd6-dced-4ec4-b756-3c3a9ea3d123') })
  .meta({ id: 'InternalAccountReference' });

/**
 * The reference leaves `amount` out of the transfer bodies' required list but gives its absence no meaning
 * (no "whole balance" rule), so the body is documented as it has it and a transfer without an amount is
 * refused, naming the field, with the other invalid fields; nothing is guessed when money moves.
 */
function requireAmount<O extends { amount?: number }, I>(schema: z.ZodType<O, I>) {
  return schema.refine((body) => body.amount !== undefined, {
    path: ['amount'],
    message: 'Required: the amount to move in the smallest unit (the reference gives an absent amount no meaning)',
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  }) as unknown as z.ZodType<O & { amount: number }, I>;
}

export const TransferInRequest = requireAmount(
  z.strictObject({ source: ExternalAccountReference, destination: InternalAccountReference, amount: Amount.optional() }),
).meta({ id: 'TransferInRequest' });

export const TransferOutRequest = requireAmount(
  z.strictObject({ source: InternalAccountReference, destination: ExternalAccountReference, amount: Amount.optional() }),
).meta({ id: 'TransferOutRequest' });
