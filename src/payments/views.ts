import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { QuoteRow, TransactionHistoryRow, TransactionRow } from '../db/schema';
import { isFailedStatus, TransactionStatus } from '../db/enums';
import { currency, currencyInfo } from '../common/currencies';
import { iso } from '../common/time';
import type { QuoteStatus, QuoteView, TransactionStatusChange, TransactionView } from './schema';

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
export function statusChangeView(row: TransactionHistoryRow): TransactionStatusChange {
  return { status: row.toStatus, ...(row.fromStatus ? { previousStatus: row.fromStatus } : {}), changedAt: iso(row.at) };
}

/** The transaction as the API shows it (spec 2.7 and the reference's incoming and outgoing shapes). */
export function transactionView(row: TransactionRow): TransactionView {
  const common: Record<string, unknown> = {
    id: row.id,
    status: row.status,
    type: row.type,
    ...(row.source ? { source: row.source } : {}),
    destination: row.destination,
    customerId: row.customerId ?? row.platformId,
    platformCustomerId: row.platformCustomerId,
  };
  if (row.settledAt !== null) common.settledAt = iso(row.settledAt);
  common.createdAt = iso(row.createdAt);
  common.updatedAt = iso(row.updatedAt);
  if (row.agentId) common.agentId = row.agentId;
  if (row.description) common.description = row.description;
  if (row.counterpartyInformation) common.counterpartyInformation = row.counterpartyInformation;
  if (row.senderUmaAddress) common.senderUmaAddress = row.senderUmaAddress;
  if (row.receiverUmaAddress) common.receiverUmaAddress = row.receiverUmaAddress;
  // Spec 2.7: reconciliation details on every transaction except CREATED ones.
  if (row.status !== 'CREATED') {
    const crypto = currencyInfo(row.receivedCurrency).kind === 'CRYPTO';
    common.reconciliationInstructions = {
      reference: row.reference,
      ...(crypto && row.settledAt !== null ? { transactionHash: bytesToHex(sha256(utf8ToBytes(`${row.id}:settle`))) } : {}),
    };
  }
  if (row.failureReason) common.failureReason = row.failureReason;
  if (awaitingApproval(row)) common.pendingPlatformApproval = true;
  const received = { amount: row.receivedAmount, currency: currency(row.receivedCurrency) };
  if (row.type === 'INCOMING') {
    return {
      ...common,
      receivedAmount: received,
      fees: row.fees,
      ...(row.rateDetails ? { rateDetails: row.rateDetails } : {}),
    } as TransactionView;
  }
  return {
    ...common,
    sentAmount: { amount: row.sentAmount!, currency: currency(row.sentCurrency!) },
    receivedAmount: received,
    ...(row.exchangeRate !== null ? { exchangeRate: row.exchangeRate } : {}),
    fees: row.fees,
    ...(row.quoteId ? { quoteId: row.quoteId } : {}),
    ...(row.paymentInstructions ? { paymentInstructions: row.paymentInstructions } : {}),
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
    ...(row.rateDetails ? { rateDetails: row.rateDetails } : {}),
  } as TransactionView;
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
