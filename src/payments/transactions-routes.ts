// The transaction routes: list, get, history, and approve or reject one awaiting the platform.
import { defineRoute, json } from '../http/route';
import { answering, type Change } from '../http/change';
import type { TransactionRow } from '../db/schema';
import { approveTransaction, rejectTransaction, type ApprovalDecider } from './approvals-service';
import { paymentDeps, type PaymentDeps } from './transaction-change';
import { transactionView } from './views';
import { ratesUnavailableResponse } from './rates-schema';
import { errorResponses } from '../http/responses';
import {
  ApproveRequest,
  RejectRequest,
  Transaction,
  TransactionHistory,
  TransactionIdParams,
  TransactionList,
  TransactionListQuery,
} from './schema';
import {
  transactionFrom,
  transactionHistoryFrom,
  transactionHistoryLoads,
  transactionListFrom,
  transactionListLoads,
  transactionLoads,
  transactionNotFound,
} from './transactions-service';

const tag = 'Transactions';

export const transactionRoutes = [
  defineRoute({
    method: 'GET',
    path: '/transactions',
    operationId: 'listTransactions',
    summary: 'List transactions (filters: customer, account, status, type, reference, dates)',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: TransactionListQuery,
    responses: { 200: { description: 'A page of transactions', schema: TransactionList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => transactionListLoads(db, platformId, query),
    handler: (c) => json(transactionListFrom(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/transactions/:transactionId',
    operationId: 'getTransactionById',
    summary: 'Get a transaction',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: TransactionIdParams,
    responses: { 200: { description: 'The transaction', schema: Transaction }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => transactionLoads(db, platformId, params.transactionId),
    handler: (c) => json(transactionFrom(c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/transactions/:transactionId/history',
    operationId: 'getTransactionHistory',
    summary: "A transaction's status changes, oldest first",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: TransactionIdParams,
    responses: { 200: { description: 'Its status history', schema: TransactionHistory }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => transactionHistoryLoads(db, platformId, params.transactionId),
    handler: (c) => json(transactionHistoryFrom(c.loaded)),
  }),
];

/** A decision of the transaction the route's load read (404 when none): the decider's or payments' Change, answering the transaction. */
async function decide(
  c: { loaded: Record<string, unknown> } & Parameters<typeof paymentDeps>[0],
  change: (deps: PaymentDeps, tx: TransactionRow) => Promise<Change<TransactionRow>>,
) {
  const tx = (c.loaded.tx as TransactionRow[])[0];
  if (!tx) throw transactionNotFound();
  return answering(await change(paymentDeps(c), tx), 200, transactionView);
}

/**
 * POST /transactions/{id}/approve|reject: a transaction awaiting platform approval is decided here, unless
 * `decider` (an agent's pending action) claims it.
 */
export const transactionApprovalRoutes = (decider: ApprovalDecider) => [
  defineRoute({
    method: 'POST',
    path: '/transactions/:transactionId/approve',
    operationId: 'approvePendingPayment',
    summary: 'Approve a transaction awaiting platform approval: its deferred action runs now',
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    params: TransactionIdParams,
    body: ApproveRequest.optional(),
    responses: {
      200: {
        description: 'Approved; the transaction as it is after the action ran (EXPIRED or FAILED when it could not)',
        schema: Transaction,
      },
      ...errorResponses(400, 401, 403, 404, 409, 413),
      ...ratesUnavailableResponse,
    },
    // The transaction, and what the decider reads (the agent action behind it, if an agent asked), ride on authentication.
    load: ({ db, params, platformId }) => decider.loads(db, platformId, params.transactionId),
    handler: (c) =>
      decide(
        c,
        (deps, tx) =>
          decider.approve(deps, c.auth.platform, c.loaded, c.now) ??
          approveTransaction(deps, c.auth.platform, tx, c.now, c.body?.receiverCustomerInfo),
      ),
  }),
  defineRoute({
    method: 'POST',
    path: '/transactions/:transactionId/reject',
    operationId: 'rejectPendingPayment',
    summary: 'Reject a transaction awaiting platform approval: nothing moves, it ends REJECTED',
    tag,
    auth: 'basic',
    permission: 'TRANSACT',
    params: TransactionIdParams,
    body: RejectRequest.optional(),
    responses: { 200: { description: 'Rejected', schema: Transaction }, ...errorResponses(400, 401, 403, 404, 409, 413) },
    load: ({ db, params, platformId }) => decider.loads(db, platformId, params.transactionId),
    handler: (c) =>
      decide(c, (deps, tx) => decider.reject(deps, c.loaded, c.body?.reason, c.now) ?? rejectTransaction(deps, tx, c.body?.reason, c.now)),
  }),
];
