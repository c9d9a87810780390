// The agent's money routes (/agents/me/quotes, transfers) and its actions and transactions, and the platform's
// approvals of its actions (/agents/approvals, /agents/{agentId}/actions/{actionId}/approve|reject).
import * as z from 'zod';
import { sql } from 'drizzle-orm';
import { loadTogether } from '../db/client';
import { defineRoute, json, type Ctx, type LoadInput } from '../http/route';
import { errorResponses } from '../http/responses';
import { badRequest, notFound } from '../http/errors';
import { answering } from '../http/change';
import { idempotencyHeaderDoc } from '../http/idempotency';
import { platformClock } from '../platform/service';
import {
  Quote,
  QuoteRequest,
  Transaction,
  TransactionList,
  TransactionListQuery,
  TransferInRequest,
  TransferOutRequest,
} from '../payments/schema';
import { getQuote, loadQuote, quoteNotFound } from '../payments/quotes-service';
import { createQuote, quoteRequestLoads } from '../payments/quote-create';
import { liveExternalAccount } from '../external-accounts/service';
import { listTransactions, loadTransaction, transactionNotFound } from '../payments/transactions-service';
import { paymentDeps } from '../payments/transaction-change';
import { transactionView } from '../payments/views';
import { ratesUnavailableResponse } from '../payments/rates-schema';
import {
  ActionIdParams,
  ActionParams,
  AgentAction,
  AgentActionList,
  AgentActionListQuery,
  ApprovalListQuery,
  RejectRequest,
} from './schema';
import {
  actionChange,
  actionLoads,
  actionView,
  approvalListFrom,
  approvalListLoads,
  approveAction,
  listAgentActions,
  loadAction,
  pendingActionLoads,
  rejectAction,
  requireActing,
  type MoneyRequest,
} from './actions-service';
import { requireAllowed } from './policy';
import { requireAgentPermission, requireCustomerAccountRow } from './service';

const tag = 'Agent Operations';
const actionDescription = 'The action: APPROVED (executed), PENDING_APPROVAL or FAILED';
const actionErrors = { ...errorResponses(400, 401, 403, 404, 409, 422), ...ratesUnavailableResponse };
// The reference answers a transfer with 201 (a new action) but the execute of an existing quote with 200.
const actionResponses = { 201: { description: actionDescription, schema: AgentAction }, ...actionErrors };
const executeResponses = { 200: { description: actionDescription, schema: AgentAction }, ...actionErrors };

/**
 * An agent's money request: its reads, the agent's usage (and an Idempotency-Key's claim) ride on the bearer
 * lookup; then the action's Change commits in one batch with the recorded answer.
 */
function act<B, P>(toRequest: (input: { body: B; params: P }) => MoneyRequest, status: 200 | 201) {
  return {
    idempotent: { scope: 'agent' } as const,
    load: (p: LoadInput<B, P>) => actionLoads(p.db, p, toRequest(p), platformClock(p.platformId, p.now)),
    handler: (c: Ctx<'agent', P, unknown, B, ReturnType<typeof actionLoads>>) => {
      const req = toRequest(c);
      requireActing(c.auth.agent, req.type);
      return actionChange(paymentDeps(c), c.auth.platform, c.auth.agent, req, c.loaded, c.now, status);
    },
  };
}

const transferRequest =
  (type: 'TRANSFER_OUT' | 'TRANSFER_IN') =>
  ({ body }: { body: { source: { accountId: string }; destination: { accountId: string }; amount: number } }): MoneyRequest => ({
    type,
    sourceAccountId: body.source.accountId,
    destinationAccountId: body.destination.accountId,
    amount: body.amount,
  });

export const agentActionRoutes = [
  defineRoute({
    method: 'POST',
    path: '/agents/me/quotes',
    operationId: 'agentCreateQuote',
    summary: "Create a quote from the customer's accounts (CREATE_QUOTES)",
    tag,
    auth: 'agent',
    agentPermission: 'CREATE_QUOTES',
    body: QuoteRequest,
    responses: { 201: { description: 'The quote', schema: Quote }, ...errorResponses(400, 401, 403, 404), ...ratesUnavailableResponse },
    handler: async (c) => {
      const agent = c.auth.agent;
      requireAgentPermission(agent, 'CREATE_QUOTES', true);
      const body = c.body;
      if (body.immediatelyExecute)
        throw badRequest('Agents execute quotes with POST /agents/me/quotes/{quoteId}/execute', {
          fields: [{ field: 'immediatelyExecute', message: 'Not available to agents' }],
        });
      const input = { ...body, source: { ...body.source, customerId: agent.customerId } };
      if (body.source.sourceType === 'REALTIME_FUNDING' && body.source.customerId && body.source.customerId !== agent.customerId)
        throw notFound('USER_NOT_FOUND', 'Customer not found');
      // What the quote names, read once: ownership is checked on it, then the quote is priced from it.
      const platformId = sql`${agent.platformId}`;
      const sourceId = body.source.sourceType === 'ACCOUNT' ? body.source.accountId : undefined;
      const loaded = await loadTogether(c.db, {
        ...quoteRequestLoads(c.db, platformId, input),
        sourceExternal: liveExternalAccount(c.db, platformId, sourceId ?? '').limit(1),
      });
      if (sourceId) {
        requireCustomerAccountRow(agent, sourceId, sourceId.startsWith('InternalAccount:') ? loaded.source[0] : loaded.sourceExternal[0]);
        requireAllowed(agent.policy, [sourceId]);
      }
      const destination = body.destination;
      if (destination.destinationType === 'ACCOUNT') {
        const internal = destination.accountId.startsWith('InternalAccount:');
        requireCustomerAccountRow(agent, destination.accountId, internal ? loaded.destinationInternal[0] : loaded.destinationExternal[0]);
      }
      return createQuote(paymentDeps(c), c.auth.platform, input, loaded, c.settings, c.now);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/quotes/:quoteId',
    operationId: 'agentGetQuote',
    summary: 'Get a quote of the customer',
    tag,
    auth: 'agent',
    agentPermission: ['CREATE_QUOTES', 'EXECUTE_QUOTES', 'VIEW_TRANSACTIONS'],
    params: z.object({ quoteId: z.string().max(128) }),
    responses: { 200: { description: 'The quote', schema: Quote }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      const { quote } = await loadQuote(c.db, c.auth.agent.platformId, c.params.quoteId);
      if (quote.customerId !== c.auth.agent.customerId) throw quoteNotFound();
      return json(await getQuote(c.db, c.auth.agent.platformId, c.params.quoteId, c.now));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/me/quotes/:quoteId/execute',
    operationId: 'agentExecuteQuote',
    summary: 'Execute a quote under the policy (EXECUTE_QUOTES): executed, pending approval, or refused',
    tag,
    auth: 'agent',
    agentPermission: 'EXECUTE_QUOTES',
    params: z.object({ quoteId: z.string().max(128) }),
    headers: idempotencyHeaderDoc,
    responses: executeResponses,
    ...act<undefined, { quoteId: string }>(({ params }) => ({ type: 'EXECUTE_QUOTE', quoteId: params.quoteId }), 200),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/me/transfer-out',
    operationId: 'agentCreateTransferOut',
    summary: 'Transfer out under the policy (CREATE_TRANSFERS)',
    tag,
    auth: 'agent',
    agentPermission: 'CREATE_TRANSFERS',
    body: TransferOutRequest,
    headers: idempotencyHeaderDoc,
    responses: actionResponses,
    ...act(transferRequest('TRANSFER_OUT'), 201),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/me/transfer-in',
    operationId: 'agentCreateTransferIn',
    summary: 'Transfer in under the policy (CREATE_TRANSFERS)',
    tag,
    auth: 'agent',
    agentPermission: 'CREATE_TRANSFERS',
    body: TransferInRequest,
    headers: idempotencyHeaderDoc,
    responses: actionResponses,
    ...act(transferRequest('TRANSFER_IN'), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/actions',
    operationId: 'agentListActions',
    summary: "The agent's own actions, newest first",
    tag,
    auth: 'agent',
    query: AgentActionListQuery,
    responses: { 200: { description: 'A page of actions', schema: AgentActionList }, ...errorResponses(400, 401) },
    handler: async (c) => json(await listAgentActions(c.db, c.auth.agent, c.query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/actions/:actionId',
    operationId: 'agentGetAction',
    summary: 'One of the agent’s actions',
    tag,
    auth: 'agent',
    params: ActionIdParams,
    responses: { 200: { description: 'The action', schema: AgentAction }, ...errorResponses(401, 404) },
    handler: async (c) => json(await actionView(c.db, await loadAction(c.db, c.auth.agent.platformId, c.params.actionId, c.auth.agent.id))),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/transactions',
    operationId: 'agentListTransactions',
    summary: "The customer's transactions (VIEW_TRANSACTIONS)",
    tag,
    auth: 'agent',
    agentPermission: 'VIEW_TRANSACTIONS',
    query: TransactionListQuery.omit({ customerId: true, platformCustomerId: true }),
    responses: { 200: { description: 'A page of transactions', schema: TransactionList }, ...errorResponses(400, 401, 403) },
    handler: async (c) => {
      return json(await listTransactions(c.db, c.auth.agent.platformId, { ...c.query, customerId: c.auth.agent.customerId }));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/transactions/:transactionId',
    operationId: 'agentGetTransaction',
    summary: "One of the customer's transactions (VIEW_TRANSACTIONS)",
    tag,
    auth: 'agent',
    agentPermission: 'VIEW_TRANSACTIONS',
    params: z.object({ transactionId: z.string().max(128) }),
    responses: { 200: { description: 'The transaction', schema: Transaction }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      const tx = await loadTransaction(c.db, c.auth.agent.platformId, c.params.transactionId);
      if (tx.customerId !== c.auth.agent.customerId) throw transactionNotFound();
      return json(transactionView(tx));
    },
  }),
];

/** The platform's side of agent actions (HTTP Basic). */
export const agentApprovalRoutes = [
  defineRoute({
    method: 'GET',
    path: '/agents/approvals',
    operationId: 'listAgentApprovals',
    summary: 'Agent actions waiting for the platform',
    tag: 'Agent Management',
    auth: 'basic',
    permission: 'VIEW',
    query: ApprovalListQuery,
    responses: { 200: { description: 'A page of actions', schema: AgentActionList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => approvalListLoads(db, platformId, query),
    handler: (c) => json(approvalListFrom(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/:agentId/actions/:actionId/approve',
    operationId: 'approveAgentAction',
    summary: 'Approve a pending action: policy and limits are checked again, then it executes',
    tag: 'Agent Management',
    auth: 'basic',
    permission: 'TRANSACT',
    params: ActionParams,
    responses: {
      200: { description: 'The action, APPROVED or FAILED', schema: AgentAction },
      ...errorResponses(401, 403, 404, 409),
      ...ratesUnavailableResponse,
    },
    // The action, its agent and transaction ride on authentication; then its accounts, then one batch.
    load: ({ db, params, platformId }) => pendingActionLoads(db, platformId, params),
    handler: async (c) => answering(await approveAction(paymentDeps(c), c.auth.platform, c.loaded, c.now), 200, (d) => d.view),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/:agentId/actions/:actionId/reject',
    operationId: 'rejectAgentAction',
    summary: 'Reject a pending action (optional reason); its transaction never executes',
    tag: 'Agent Management',
    auth: 'basic',
    permission: 'TRANSACT',
    params: ActionParams,
    body: RejectRequest,
    responses: { 200: { description: 'The action, REJECTED', schema: AgentAction }, ...errorResponses(400, 401, 403, 404, 409) },
    load: ({ db, params, platformId }) => pendingActionLoads(db, platformId, params),
    handler: async (c) => answering(await rejectAction(paymentDeps(c), c.loaded, c.body?.reason, c.now), 200, (d) => d.view),
  }),
];
