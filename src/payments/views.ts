// Transactions and quotes as the API shows them (and the statuses a quote shows).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { transactionQuoteId, type QuoteRow, type StatusStep, type TransactionRow } from '../db/schema';
import { isFailedStatus, TransactionStatus } from '../db/enums';
import { currency, currencyInfo } from '../common/currencies';
import { iso } from '../common/time';
import type * as z from 'zod';
import type { PaymentInstructions } from '../accounts/internal-schema';
import type { RateDetails } from './rates-schema';
import type {
  IncomingRateDetails,
  QuoteStatus,
  QuoteView,
  ReconciliationInstructions,
  TransactionDestination,
  TransactionSource,
  TransactionStatusChange,
  TransactionView,
} from './schema';

/** A stable reference derived from an id (what a bank memo or a payout would carry). */
export function referenceFor(prefix: string, id: string): string {
  return `${prefix}-${bytesToHex(sha256(utf8ToBytes(id)))
    .slice(0, 12)
    .toUpperCase()}`;
}

/** Whether the transaction waits for the platform's decision (POST /transactions/{id}/approve or /reject). */
export function awaitingApproval(row: Pick<TransactionRow, 'status' | 'approval'>): boolean {
  return row.status === 'PENDING' && row.approval?.state === 'PENDING_APPROVAL';
}

/** One status change of a transaction as GET /transactions/{id}/history shows it. */
export function statusChangeView([from, to, at]: StatusStep): TransactionStatusChange {
  return { status: to, ...(from ? { previousStatus: from } : {}), changedAt: iso(at) };
}

/** The transaction as the API shows it (the reference's incoming and outgoing shapes). */
export function transactionView(row: TransactionRow): TransactionView {
  // The JSON columns hold what was shown when they were written; db/ types them loosely, so they are named here.
  const source = row.source as z.infer<typeof TransactionSource> | null;
  const paymentInstructions = row.paymentInstructions as PaymentInstructions[] | null;
  const quoteId = transactionQuoteId(row);
  const common = {
    id: row.id,
    status: row.status,
    type: row.type,
    ...(source ? { source } : {}),
    destination: row.destination as z.infer<typeof TransactionDestination>,
    customerId: row.customerId ?? row.platformId,
    platformCustomerId: row.platformCustomerId,
    ...(row.settledAt !== null ? { settledAt: iso(row.settledAt) } : {}),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    ...(row.agentId ? { agentId: row.agentId } : {}),
    ...(row.description ? { description: row.description } : {}),
    ...(row.counterpartyInformation ? { counterpartyInformation: row.counterpartyInformation } : {}),
    ...(row.senderUmaAddress ? { senderUmaAddress: row.senderUmaAddress } : {}),
    ...(row.receiverUmaAddress ? { receiverUmaAddress: row.receiverUmaAddress } : {}),
    // Reconciliation details on every transaction except CREATED ones.
    ...(row.status !== 'CREATED' ? { reconciliationInstructions: reconciliationOf(row) } : {}),
    ...(row.failureReason ? { failureReason: row.failureReason } : {}),
    ...(awaitingApproval(row) ? { pendingPlatformApproval: true } : {}),
  };
  const receivedAmount = { amount: row.receivedAmount, currency: currency(row.receivedCurrency) };
  if (row.type === 'INCOMING') {
    return {
      ...common,
      type: 'INCOMING',
      receivedAmount,
      fees: row.fees,
      ...(row.rateDetails ? { rateDetails: row.rateDetails as z.infer<typeof IncomingRateDetails> } : {}),
    };
  }
  return {
    ...common,
    type: 'OUTGOING',
    source: source!,
    sentAmount: { amount: row.sentAmount!, currency: currency(row.sentCurrency!) },
    receivedAmount,
    ...(row.exchangeRate !== null ? { exchangeRate: row.exchangeRate } : {}),
    fees: row.fees,
    ...(quoteId ? { quoteId } : {}),
    ...(paymentInstructions ? { paymentInstructions } : {}),
    ...(row.refund
      ? {
          refund: {
            reference: row.refund.reference,
            initiatedAt: iso(row.refund.initiatedAt),
            ...(row.refund.settledAt !== undefined ? { settledAt: iso(row.refund.settledAt) } : {}),
            status: row.refund.status,
            reason: row.refund.reason,
          },
        }
      : {}),
    ...(row.rateDetails ? { rateDetails: row.rateDetails as z.infer<typeof RateDetails> } : {}),
  };
}

/** The reference a payment carries, and a crypto destination's transaction hash once settled. */
function reconciliationOf(row: TransactionRow): z.infer<typeof ReconciliationInstructions> {
  const crypto = currencyInfo(row.receivedCurrency).kind === 'CRYPTO';
  return {
    reference: row.reference,
    ...(crypto && row.settledAt !== null ? { transactionHash: bytesToHex(sha256(utf8ToBytes(`${row.id}:settle`))) } : {}),
  };
}

/** A quote's status follows its transaction's: a failed end is FAILED, except EXPIRED, which the quote shows. */
export function quoteStatus(status: TransactionStatus): QuoteStatus {
  if (status === 'EXPIRED') return 'EXPIRED';
  if (isFailedStatus(status)) return 'FAILED';
  return status === 'CREATED' ? 'PENDING' : status;
}

/** quoteStatus as a table (the stored quote columns of migration 0018 map statuses the same way, in SQL). */
export const QUOTE_STATUS_OF = Object.fromEntries(TransactionStatus.options.map((s) => [s, quoteStatus(s)])) as Record<
  TransactionStatus,
  QuoteStatus
>;

/** The transaction status a quote reads as at `now`: still pending past its expiresAt is EXPIRED, before its expiry transition has run. */
export function quoteTransactionStatus(quote: Pick<QuoteRow, 'expiresAt'>, status: TransactionStatus, now: number): TransactionStatus {
  return quoteStatus(status) === 'PENDING' && now >= quote.expiresAt ? 'EXPIRED' : status;
}

export function quoteView(quote: QuoteRow, status: TransactionStatus): QuoteView {
  return {
    id: quote.id,
    status: quoteStatus(status),
    createdAt: iso(quote.createdAt),
    expiresAt: iso(quote.expiresAt),
    source: quote.source as QuoteView['source'],
    destination: quote.destination as QuoteView['destination'],
    sendingCurrency: currency(quote.sendingCurrency),
    receivingCurrency: currency(quote.receivingCurrency),
    totalSendingAmount: quote.totalSendingAmount,
    totalReceivingAmount: quote.totalReceivingAmount,
    exchangeRate: quote.exchangeRate,
    feesIncluded: quote.feesIncluded,
    ...(quote.paymentInstructions ? { paymentInstructions: quote.paymentInstructions as QuoteView['paymentInstructions'] } : {}),
    transactionId: quote.transactionId,
    ...(quote.counterpartyInformation ? { counterpartyInformation: quote.counterpartyInformation } : {}),
    rateDetails: quote.rateDetails as QuoteView['rateDetails'],
  };
}
