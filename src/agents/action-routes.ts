// The agent's own money and read routes (/agents/me/*) and the platform's approvals of its actions. Just over
// 300 lines: one route list for one API tag.
import * as z from 'zod';
import { defineRoute, json, type Ctx } from '../http/route';
import { errorResponses } from '../http/responses';
import { ApiError, badRequest, notFound } from '../http/errors';
import { IDEMPOTENCY_HEADER, idempotencyHeaderDoc, withIdempotency } from '../http/idempotency';
import { loadTogether } from '../db/client';
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
import { sql } from 'drizzle-orm';
import { listTransactions, loadTransaction, transactionNotFound } from '../payments/transactions-service';
import { paymentDeps } from '../payments/transaction-change';
import { transactionView } from '../payments/views';
import type { AgentRow } from '../db/schema';
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
  actionLoads,
  approveAction,
  pendingActionLoads,
  listAgentActions,
  approvalListFrom,
  approvalListLoads,
  loadAction,
  rejectAction,
  requireActing,
  submitAction,
  type MoneyRequest,
  actionView,
} from './actions-service';
import { requireAgentPermission, requireCustomerAccountRow } from './service';
import { ratesUnavailableResponse } from '../payments/rates-schema';

const tag = 'Agent Operations';
const actionDescription = 'The action: APPROVED (executed), PENDING_APPROVAL or FAILED';
const actionErrors = { ...errorResponses(400, 401, 403, 404, 409, 422), ...ratesUnavailableResponse };
// The reference answers a transfer with 201 (a new action) but the execute of an existing quote with 200.
const actionResponses = { 201: { description: actionDescription, schema: AgentAction }, ...actionErrors };
const executeResponses = { 200: { description: actionDescription, schema: AgentAction }, ...actionErrors };

type AgentCtx = Ctx<'agent', any, any, any>;

/**
 * Runs an agent's money request, idempotently when it sent an `Idempotency-Key`: its reads (with the key's
 * claim) in one round trip, then one batch records the action, moves the money and stores the answer.
 */
async function act(c: AgentCtx, req: MoneyRequest, status = 201) {
  const { agent, platform } = c.auth;
  requireActing(agent, req.type);
  const reads = actionLoads(c.db, agent, req, c.now);
  if (!c.request.headers.has(IDEMPOTENCY_HEADER)) {
    return json(await submitAction(paymentDeps(c), platform, agent, req, await loadTogether(c.db, reads), c.now), status);
  }
  return withIdempotency(
    c,
    `agent:${agent.id}`,
    async (claim) => {
      let body = '';
      // Called for the batch that commits (a shortfall builds a second one): its answer is the one recorded.
      await submitAction(paymentDeps(c), platform, agent, req, claim.reads, c.now, (view) => [
        claim.record(status, (body = JSON.stringify(view))),
      ]);
      return claim.recorded(status, body);
    },
    { reads },
  );
}

function requireAllowed(agent: AgentRow, accountId: string) {
  const allowed = agent.policy.accountRestrictions?.allowedAccountIds;
  if (allowed && !allowed.includes(accountId)) throw new ApiError('FORBIDDEN', `The agent's policy does not allow account ${accountId}`);
}

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
        requireAllowed(agent, sourceId);
      }
      const destination = body.destination;
      if (destination.destinationType === 'ACCOUNT') {
        const internal = destination.accountId.startsWith('InternalAccount:');
        requireCustomerAccountRow(agent, destination.accountId, internal ? loaded.destinationInternal[0] : loaded.destinationExternal[0]);
      }
      return json(await createQuote(paymentDeps(c), c.auth.platform, input, loaded, c.settings, c.now), 201);
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
    handler: (c) => act(c, { type: 'EXECUTE_QUOTE', quoteId: c.params.quoteId }, 200),
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
    handler: (c) =>
      act(c, {
        type: 'TRANSFER_OUT',
        sourceAccountId: c.body.source.accountId,
        destinationAccountId: c.body.destination.accountId,
        amount: c.body.amount,
      }),
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
    handler: (c) =>
      act(c, {
        type: 'TRANSFER_IN',
        sourceAccountId: c.body.source.accountId,
        destinationAccountId: c.body.destination.accountId,
        amount: c.body.amount,
      }),
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
    handler: async (c) => json((await approveAction(paymentDeps(c), c.auth.platform, c.loaded, c.now)).view),
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
    handler: async (c) => json((await rejectAction(paymentDeps(c), c.loaded, c.body?.reason, c.now)).view),
  }),
];
