import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { ApproveRequest, RejectRequest, Transaction, TransactionIdParams } from '../payments/schema';
import { approveTransaction, rejectTransaction } from '../payments/approvals-service';
import { paymentDeps } from '../payments/transaction-change';
import { getTransaction } from '../payments/transactions-service';
import { transactionView } from '../payments/views';
import { ratesUnavailableResponse } from '../payments/rates-schema';
import { actionOfTransaction, approveAction, rejectAction } from './actions-service';

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
    handler: async (c) => {
      // An agent's pending action decides through the action, so its policy and limits are checked again.
      const action = await actionOfTransaction(c.db, c.auth.platform.id, c.params.transactionId);
      if (action) {
        await approveAction(paymentDeps(c), c.auth.platform, action, c.now);
        return json(await getTransaction(c.db, c.auth.platform.id, c.params.transactionId));
      }
      return json(
        transactionView(
          await approveTransaction(paymentDeps(c), c.auth.platform, c.params.transactionId, c.now, c.body?.receiverCustomerInfo),
        ),
      );
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
    handler: async (c) => {
      const action = await actionOfTransaction(c.db, c.auth.platform.id, c.params.transactionId);
      if (action) {
        await rejectAction(paymentDeps(c), c.auth.platform, action, c.body?.reason, c.now);
        return json(await getTransaction(c.db, c.auth.platform.id, c.params.transactionId));
      }
      return json(transactionView(await rejectTransaction(paymentDeps(c), c.auth.platform, c.params.transactionId, c.body?.reason, c.now)));
    },
  }),
];
