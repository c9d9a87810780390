// The webhook events of a transaction entering a status, and their data.
import type { Db } from '../db/client';
import type { TransactionRow, TransactionStatus } from '../db/schema';
import { isFailedStatus } from '../db/enums';
import type { Statement } from '../db/client';
import { eventStatements } from '../webhooks/outbox';
import type { WebhookType } from '../webhooks/schema';
import { awaitingApproval, transactionView } from './views';

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
 * OUTGOING_PAYMENT.* types (REJECTED is a failure; a refund started in the change adds REFUND_PENDING, then
 * REFUND_COMPLETED or REFUND_FAILED as it ended); incoming ones have only PENDING, COMPLETED and FAILED.
 * `refundOnly`: the change settled a refund the rail was asked for, and announces only how it ended.
 */
function transactionEventTypes(row: TransactionRow, refundChanged: boolean, refundOnly: boolean): WebhookType[] {
  if (refundOnly) return row.refund?.status === 'COMPLETED' ? ['OUTGOING_PAYMENT.REFUND_COMPLETED'] : ['OUTGOING_PAYMENT.REFUND_FAILED'];
  if (row.type === 'INCOMING') {
    if (row.status === 'COMPLETED') return ['INCOMING_PAYMENT.COMPLETED'];
    return [isFailedStatus(row.status) ? 'INCOMING_PAYMENT.FAILED' : 'INCOMING_PAYMENT.PENDING'];
  }
  const refund = refundChanged ? row.refund : null;
  // A REFUNDED payment's own type already says REFUND_COMPLETED.
  const types: WebhookType[] = row.status === 'REFUNDED' ? [] : [OUTGOING[row.status]];
  if (refund) types.push('OUTGOING_PAYMENT.REFUND_PENDING');
  if (row.status === 'REFUNDED') types.push(OUTGOING.REFUNDED);
  else if (refund?.status === 'COMPLETED') types.push('OUTGOING_PAYMENT.REFUND_COMPLETED');
  else if (refund?.status === 'FAILED') types.push('OUTGOING_PAYMENT.REFUND_FAILED');
  return types;
}

/**
 * The event's data: the transaction as the API shows it. REFUND_PENDING shows the refund as it started
 * (the sandbox starts and ends a refund in one change); an incoming payment's approval request carries
 * the receiver fields the sender asks for (reference `IncomingPaymentWebhookData`).
 */
function eventData(row: TransactionRow, type: WebhookType): Record<string, unknown> {
  if (type === 'OUTGOING_PAYMENT.REFUND_PENDING' && row.refund) {
    const { settledAt: _settled, ...started } = row.refund;
    return transactionView({ ...row, refund: { ...started, status: 'PENDING' } });
  }
  const view: Record<string, unknown> = transactionView(row);
  const requested = row.approval?.requestedFields;
  if (type === 'INCOMING_PAYMENT.PENDING' && awaitingApproval(row) && requested?.length)
    view.requestedReceiverCustomerInfoFields = requested;
  return view;
}

/** Outbox statements for `row` having entered its status. */
export function transactionEvents(db: Db, row: TransactionRow, refundChanged: boolean, now: number, refundOnly = false) {
  const statements: Statement[] = [];
  const eventIds: string[] = [];
  for (const type of transactionEventTypes(row, refundChanged, refundOnly)) {
    const e = eventStatements(db, { platformId: row.platformId, type, data: eventData(row, type), now });
    statements.push(...e.statements);
    eventIds.push(e.eventId);
  }
  return { statements, eventIds };
}
