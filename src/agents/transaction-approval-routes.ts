import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { ApproveRequest, RejectRequest, Transaction, TransactionIdParams } from '../payments/schema';
import { approveTransaction, rejectTransaction } from '../payments/approvals-service';
import { paymentDeps } from '../payments/transaction-change';
import { transactionNotFound } from '../payments/transactions-service';
import { transactionView } from '../payments/views';
import { ratesUnavailableResponse } from '../payments/rates-schema';
import { approveAction, pendingActionLoads, rejectAction } from './actions-service';

// POST /transactions/{id}/approve|reject: a transaction awaiting platform approval is decided by payments,
// unless it is an agent's pending action, which decides through the action. They live here, above both.
const tag = 'Transactions';

export const transactionApprovalRoutes = [
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
    // The transaction, and the agent action behind it if an agent asked, ride on authentication.
    load: ({ db, params, platformId }) => pendingActionLoads(db, platformId, params),
    handler: async (c) => {
      const tx = c.loaded.tx[0];
      if (!tx) throw transactionNotFound();
      // An agent's pending action decides through the action, so its policy and limits are checked again.
      if (c.loaded.action[0]) return json(transactionView((await approveAction(paymentDeps(c), c.auth.platform, c.loaded, c.now)).tx));
      return json(transactionView(await approveTransaction(paymentDeps(c), c.auth.platform, tx, c.now, c.body?.receiverCustomerInfo)));
    },
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
    load: ({ db, params, platformId }) => pendingActionLoads(db, platformId, params),
    handler: async (c) => {
      const tx = c.loaded.tx[0];
      if (!tx) throw transactionNotFound();
      if (c.loaded.action[0]) return json(transactionView((await rejectAction(paymentDeps(c), c.loaded, c.body?.reason, c.now)).tx));
      return json(transactionView(await rejectTransaction(paymentDeps(c), tx, c.body?.reason, c.now)));
    },
  }),
];
