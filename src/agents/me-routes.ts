// The agent's own surface, tag Agent Operations (Bearer token, bound to one customer): /agents/me, its
// accounts, quotes and transfers under its policy, its actions and its customer's transactions.
import * as z from 'zod';
import { sql } from 'drizzle-orm';
import { loadTogether } from '../db/client';
import { defineRoute, json, noContent, type Ctx, type LoadInput } from '../http/route';
import { errorResponses } from '../http/responses';
import { badRequest, notFound } from '../http/errors';
import { platformClock } from '../platform/service';
import { isInternalAccountId } from '../crypto/ids';
import { InternalAccountList, InternalAccountListQuery } from '../accounts/internal-schema';
import { listCustomerInternalAccounts } from '../accounts/internal-service';
import {
  ExternalAccount,
  ExternalAccountCreate,
  ExternalAccountIdParams,
  ExternalAccountList,
  ExternalAccountListQuery,
} from '../external-accounts/schema';
import {
  createExternalAccount,
  deleteExternalAccount,
  externalAccountView,
  listCustomerExternalAccounts,
  liveExternalAccount,
} from '../external-accounts/service';
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
import { listTransactions, loadTransaction, transactionNotFound } from '../payments/transactions-service';
import { paymentDeps } from '../payments/transaction-change';
import { transactionView } from '../payments/views';
import { ratesUnavailableResponse } from '../payments/rates-schema';
import { ActionIdParams, Agent, AgentAction, AgentActionList, AgentActionListQuery } from './schema';
import { actionChange, actionLoads, type MoneyRequest } from './actions-service';
import { actionView, listAgentActions, loadAction } from './action-views';
import { requireAllowed } from './policy';
import { agentExternalAccount, agentView, requireCustomerAccountRow, usageOf } from './service';
import { quoteCustomerId } from '../db/schema';

const tag = 'Agent Operations';
const EXTERNAL_READ = ['MANAGE_EXTERNAL_ACCOUNTS', 'VIEW_TRANSACTIONS'] as const;
// The reference's own body: customerId may be sent, and then must be the agent's customer.
const AgentExternalAccountCreate = ExternalAccountCreate.extend({
  customerId: z.string().max(128).optional().meta({ description: "The agent's customer (implied when omitted)" }),
}).meta({ id: 'AgentExternalAccountCreateRequest' });
const AgentInternalAccountQuery = InternalAccountListQuery.omit({ customerId: true });
const AgentExternalAccountQuery = ExternalAccountListQuery.omit({ customerId: true });

const actionDescription = 'The action: APPROVED (executed), PENDING_APPROVAL or FAILED';
const actionErrors = { ...errorResponses(400, 401, 403, 404, 409, 422), ...ratesUnavailableResponse };
// The reference answers a transfer with 201 (a new action) but the execute of an existing quote with 200.
const actionResponses = { 201: { description: actionDescription, schema: AgentAction }, ...actionErrors };
const executeResponses = { 200: { description: actionDescription, schema: AgentAction }, ...actionErrors };

/**
 * An agent's money request: its reads, the agent's usage (and an Idempotency-Key's claim) ride on the bearer
 * lookup; the runner refuses a paused agent or a policy without the route's permission; then the action's
 * Change commits in one batch with the recorded answer.
 */
function act<B, P>(toRequest: (input: { body: B; params: P }) => MoneyRequest, status: 200 | 201) {
  return {
    idempotent: { scope: 'agent' } as const,
    acting: true,
    movesMoney: true,
    load: (p: LoadInput<B, P>) => actionLoads(p.db, p, toRequest(p), platformClock(p.platformId, p.now)),
    handler: (c: Ctx<'agent', P, unknown, B, ReturnType<typeof actionLoads>>) =>
      actionChange(paymentDeps(c), c.auth.platform, c.auth.agent, toRequest(c), c.loaded, c.now, status),
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

/** The agent's own surface (Bearer token): everything is bound to the agent's one customer. */
export const agentMeRoutes = [
  defineRoute({
    method: 'GET',
    path: '/agents/me',
    operationId: 'getAgentMe',
    summary: 'The calling agent, with its policy and usage',
    tag,
    auth: 'agent',
    responses: { 200: { description: 'The agent', schema: Agent }, ...errorResponses(401) },
    handler: async (c) => json(agentView(c.auth.agent, (await usageOf(c.db, [c.auth.agent.id], c.now)).get(c.auth.agent.id)!, c.now)),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/internal-accounts',
    operationId: 'agentListInternalAccounts',
    summary: "The customer's internal accounts and balances (VIEW_TRANSACTIONS)",
    tag,
    auth: 'agent',
    agentPermission: 'VIEW_TRANSACTIONS',
    query: AgentInternalAccountQuery,
    responses: { 200: { description: 'A page of accounts', schema: InternalAccountList }, ...errorResponses(400, 401, 403) },
    handler: async (c) =>
      json(
        await listCustomerInternalAccounts(
          c.db,
          c.auth.agent.platformId,
          { ...c.query, customerId: c.auth.agent.customerId },
          c.settings.mode,
        ),
      ),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/external-accounts',
    operationId: 'agentListExternalAccounts',
    summary: "The customer's external accounts (MANAGE_EXTERNAL_ACCOUNTS or VIEW_TRANSACTIONS)",
    tag,
    auth: 'agent',
    agentPermission: EXTERNAL_READ,
    query: AgentExternalAccountQuery,
    responses: { 200: { description: 'A page of external accounts', schema: ExternalAccountList }, ...errorResponses(400, 401, 403) },
    handler: async (c) =>
      json(await listCustomerExternalAccounts(c.db, c.auth.agent.platformId, { ...c.query, customerId: c.auth.agent.customerId })),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/me/external-accounts',
    operationId: 'agentCreateExternalAccount',
    summary: 'Add an external account for the customer (MANAGE_EXTERNAL_ACCOUNTS)',
    tag,
    auth: 'agent',
    agentPermission: 'MANAGE_EXTERNAL_ACCOUNTS',
    acting: true,
    body: AgentExternalAccountCreate,
    responses: { 201: { description: 'Created', schema: ExternalAccount }, ...errorResponses(400, 401, 403, 404, 409) },
    handler: async (c) => {
      // Another customer is as unknown to the agent as a made-up id.
      if (c.body.customerId !== undefined && c.body.customerId !== c.auth.agent.customerId)
        throw notFound('USER_NOT_FOUND', 'Customer not found');
      const body = { ...c.body, customerId: c.auth.agent.customerId };
      return json(await createExternalAccount(c.db, c.auth.platform, body, c.settings.mode, c.now), 201);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/me/external-accounts/:externalAccountId',
    operationId: 'agentGetExternalAccount',
    summary: 'Get one of the customer’s external accounts',
    tag,
    auth: 'agent',
    agentPermission: EXTERNAL_READ,
    params: ExternalAccountIdParams,
    responses: { 200: { description: 'The external account', schema: ExternalAccount }, ...errorResponses(401, 403, 404) },
    handler: async (c) => json(externalAccountView(await agentExternalAccount(c.db, c.auth.agent, c.params.externalAccountId))),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/agents/me/external-accounts/:externalAccountId',
    operationId: 'agentDeleteExternalAccount',
    summary: 'Delete one of the customer’s external accounts (MANAGE_EXTERNAL_ACCOUNTS)',
    tag,
    auth: 'agent',
    agentPermission: 'MANAGE_EXTERNAL_ACCOUNTS',
    acting: true,
    params: ExternalAccountIdParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await agentExternalAccount(c.db, c.auth.agent, c.params.externalAccountId);
      await deleteExternalAccount(c.db, c.auth.agent.platformId, c.params.externalAccountId, 'any', c.now);
      return noContent();
    },
  }),

  defineRoute({
    method: 'POST',
    path: '/agents/me/quotes',
    operationId: 'agentCreateQuote',
    summary: "Create a quote from the customer's accounts (CREATE_QUOTES)",
    tag,
    auth: 'agent',
    agentPermission: 'CREATE_QUOTES',
    acting: true,
    body: QuoteRequest,
    followUp: 'agentExecuteQuote',
    responses: {
      201: { description: 'The quote', schema: Quote },
      ...errorResponses(400, 401, 403, 404, 412, 424),
      ...ratesUnavailableResponse,
    },
    handler: async (c) => {
      const agent = c.auth.agent;
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
        requireCustomerAccountRow(agent, sourceId, isInternalAccountId(sourceId) ? loaded.source[0] : loaded.sourceExternal[0]);
        requireAllowed(agent.policy, [sourceId]);
      }
      const destination = body.destination;
      if (destination.destinationType === 'ACCOUNT') {
        const internal = isInternalAccountId(destination.accountId);
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
      if (quoteCustomerId(quote) !== c.auth.agent.customerId) throw quoteNotFound();
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
