import type { Db } from '../db/client';
import type { TransactionRow, TransactionStatus } from '../db/schema';
import type { Statement } from '../ledger/ledger';
import { eventStatements } from '../webhooks/outbox';
import type { WebhookType } from '../webhooks/schema';
import { transactionView } from './views';

const OUTGOING: Record<TransactionStatus, WebhookType> = {
  CREATED: 'OUTGOING_PAYMENT.PENDING',
  PENDING: 'OUTGOING_PAYMENT.PENDING',
  PROCESSING: 'OUTGOING_PAYMENT.PROCESSING',
  COMPLETED: 'OUTGOING_PAYMENT.COMPLETED',
  FAILED: 'OUTGOING_PAYMENT.FAILED',
  REJECTED: 'OUTGOING_PAYMENT.FAILED',
  EXPIRED: 'OUTGOING_PAYMENT.EXPIRED',
  REFUNDED: 'OUTGOING_PAYMENT.REFUND_COMPLETED',
};

/**
 * The webhook types announcing that `row` entered its status. Outgoing payments use the reference's
 * OUTGOING_PAYMENT.* types (REJECTED is a failure; a refund made or failed in the same change adds
 * REFUND_COMPLETED or REFUND_FAILED); incoming ones have only PENDING, COMPLETED and FAILED.
 */
export function transactionEventTypes(row: TransactionRow, refundChanged: boolean): WebhookType[] {
  if (row.type === 'INCOMING') {
    if (row.status === 'COMPLETED') return ['INCOMING_PAYMENT.COMPLETED'];
    if (['CREATED', 'PENDING', 'PROCESSING'].includes(row.status)) return ['INCOMING_PAYMENT.PENDING'];
    return ['INCOMING_PAYMENT.FAILED'];
  }
  const types = [OUTGOING[row.status]];
  if (refundChanged && row.refund && row.status !== 'REFUNDED') {
    if (row.refund.status === 'COMPLETED') types.push('OUTGOING_PAYMENT.REFUND_COMPLETED');
    if (row.refund.status === 'FAILED') types.push('OUTGOING_PAYMENT.REFUND_FAILED');
  }
  return types;
}

/** Outbox statements for `row` having entered its status; data is the transaction as the API shows it. */
export function transactionEvents(db: Db, row: TransactionRow, refundChanged: boolean, now: number) {
  const statements: Statement[] = [];
  const eventIds: string[] = [];
  for (const type of transactionEventTypes(row, refundChanged)) {
    const e = eventStatements(db, { platformId: row.platformId, type, data: transactionView(row), now });
    statements.push(...e.statements);
    eventIds.push(e.eventId);
  }
  return { statements, eventIds };
}
