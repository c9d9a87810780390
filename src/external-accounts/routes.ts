// The external-account routes of customers and of the platform, and the institutions of their corridors.
import { defineRoute, json, noContent } from '../http/route';
import { errorResponses } from '../http/responses';
import {
  ExternalAccount,
  ExternalAccountCreate,
  ExternalAccountIdParams,
  ExternalAccountList,
  ExternalAccountListQuery,
  PlatformExternalAccountCreate,
  PlatformExternalAccountListQuery,
} from './schema';
import {
  createExternalAccount,
  customerExternalAccountList,
  deleteExternalAccount,
  externalAccountFrom,
  externalAccountLoads,
  platformExternalAccountList,
} from './service';
import { discoveries, DiscoveryList, DiscoveryQuery } from './discoveries';

const tag = 'External Accounts';

const customerExternalAccountRoutes = [
  defineRoute({
    method: 'POST',
    path: '/customers/external-accounts',
    operationId: 'createCustomerExternalAccount',
    summary: 'Add an external bank account or wallet (sandbox: beneficiary verification by identifier suffix)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: ExternalAccountCreate,
    responses: { 201: { description: 'Created', schema: ExternalAccount }, ...errorResponses(400, 401, 403, 404, 409, 410, 413) },
    handler: async (c) => json(await createExternalAccount(c.db, c.auth.platform, c.body, c.settings.mode, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/external-accounts',
    operationId: 'listCustomerExternalAccounts',
    summary: "List customers' external accounts",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: ExternalAccountListQuery,
    responses: { 200: { description: 'A page of external accounts', schema: ExternalAccountList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => customerExternalAccountList.loads(db, platformId, query),
    handler: (c) => json(customerExternalAccountList.from(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/customers/external-accounts/:externalAccountId',
    operationId: 'getCustomerExternalAccountById',
    summary: 'Get an external account',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: ExternalAccountIdParams,
    responses: { 200: { description: 'The external account', schema: ExternalAccount }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => externalAccountLoads(db, platformId, params.externalAccountId),
    handler: (c) => json(externalAccountFrom(c.loaded)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/customers/external-accounts/:externalAccountId',
    operationId: 'deleteCustomerExternalAccountById',
    summary: 'Delete an external account',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: ExternalAccountIdParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await deleteExternalAccount(c.db, c.auth.platform.id, c.params.externalAccountId, 'any', c.now);
      return noContent();
    },
  }),
];

const platformExternalAccountRoutes = [
  defineRoute({
    method: 'POST',
    path: '/platform/external-accounts',
    operationId: 'createPlatformExternalAccount',
    summary: "Add one of the platform's own external accounts",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: PlatformExternalAccountCreate,
    responses: { 201: { description: 'Created', schema: ExternalAccount }, ...errorResponses(400, 401, 403, 409, 413) },
    handler: async (c) =>
      json(await createExternalAccount(c.db, c.auth.platform, { ...c.body, defaultUmaDepositAccount: false }, c.settings.mode, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/platform/external-accounts',
    operationId: 'listPlatformExternalAccounts',
    summary: "List the platform's own external accounts",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: PlatformExternalAccountListQuery,
    responses: { 200: { description: 'A page of external accounts', schema: ExternalAccountList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => platformExternalAccountList.loads(db, platformId, query),
    handler: (c) => json(platformExternalAccountList.from(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'GET',
    path: '/platform/external-accounts/:externalAccountId',
    operationId: 'getPlatformExternalAccountById',
    summary: "Get one of the platform's own external accounts",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: ExternalAccountIdParams,
    responses: { 200: { description: 'The external account', schema: ExternalAccount }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => externalAccountLoads(db, platformId, params.externalAccountId, 'platform'),
    handler: (c) => json(externalAccountFrom(c.loaded)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/platform/external-accounts/:externalAccountId',
    operationId: 'deletePlatformExternalAccountById',
    summary: "Delete one of the platform's own external accounts",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: ExternalAccountIdParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await deleteExternalAccount(c.db, c.auth.platform.id, c.params.externalAccountId, 'platform', c.now);
      return noContent();
    },
  }),
];

const discoveryRoutes = [
  defineRoute({
    method: 'GET',
    path: '/discoveries',
    operationId: 'getDiscoveries',
    summary: 'List receiving institutions (bankName values) by country and currency, from the corridor catalogue',
    tag: 'Discoveries',
    auth: 'basic',
    permission: 'VIEW',
    query: DiscoveryQuery,
    responses: { 200: { description: 'The institutions', schema: DiscoveryList }, ...errorResponses(400, 401, 403) },
    // Pure: the catalogue is compiled in.
    handler: (c) => json(discoveries(c.query)),
  }),
];

/** External accounts of customers and of the platform, and GET /discoveries. */
export const externalAccountRoutes = [...customerExternalAccountRoutes, ...platformExternalAccountRoutes, ...discoveryRoutes];
