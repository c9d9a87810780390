import * as z from 'zod';
import { notFound } from '../http/errors';
import { defineRoute, json, noContent } from '../http/route';
import { errorResponses } from '../http/responses';
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
} from '../external-accounts/service';
import { Agent } from './schema';
import { agentExternalAccount, agentView, requireAgentPermission, usageOf } from './service';

const tag = 'Agent Operations';
const EXTERNAL_READ = ['MANAGE_EXTERNAL_ACCOUNTS', 'VIEW_TRANSACTIONS'] as const;
// The reference's own body: customerId may be sent, and then must be the agent's customer.
const AgentExternalAccountCreate = ExternalAccountCreate.extend({
  customerId: z.string().max(128).optional().meta({ description: "The agent's customer (implied when omitted)" }),
}).meta({ id: 'AgentExternalAccountCreateRequest' });
const AgentInternalAccountQuery = InternalAccountListQuery.omit({ customerId: true });
const AgentExternalAccountQuery = ExternalAccountListQuery.omit({ customerId: true });

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
    body: AgentExternalAccountCreate,
    responses: { 201: { description: 'Created', schema: ExternalAccount }, ...errorResponses(400, 401, 403, 404, 409) },
    handler: async (c) => {
      requireAgentPermission(c.auth.agent, 'MANAGE_EXTERNAL_ACCOUNTS', true);
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
    params: ExternalAccountIdParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      requireAgentPermission(c.auth.agent, 'MANAGE_EXTERNAL_ACCOUNTS', true);
      await agentExternalAccount(c.db, c.auth.agent, c.params.externalAccountId);
      await deleteExternalAccount(c.db, c.auth.agent.platformId, c.params.externalAccountId, 'any', c.now);
      return noContent();
    },
  }),
];
