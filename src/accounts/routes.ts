import { defineRoute, json } from '../http/route';
import { mapPage } from '../http/pagination';
import { errorResponses } from '../http/responses';
import {
  AccountIdParams,
  InternalAccount,
  InternalAccountList,
  InternalAccountListQuery,
  PlatformInternalAccountList,
  PlatformInternalAccountListQuery,
  SandboxFundRequest,
} from './internal-schema';
import {
  fundInternalAccount,
  internalAccountLoad,
  internalAccountView,
  customerInternalAccountList,
  listPlatformInternalAccounts,
} from './internal-service';

const tag = 'Internal Accounts';

export const internalAccountRoutes = [
  defineRoute({
    method: 'GET',
    path: '/customers/internal-accounts',
    operationId: 'listCustomerInternalAccounts',
    summary: "List customers' internal accounts",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: InternalAccountListQuery,
    responses: { 200: { description: 'A page of internal accounts', schema: InternalAccountList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => customerInternalAccountList.loads(db, platformId, query),
    handler: (c) => json(mapPage(customerInternalAccountList.from(c.query, c.loaded), (r) => internalAccountView(r, c.settings.mode))),
  }),
  defineRoute({
    method: 'GET',
    path: '/platform/internal-accounts',
    operationId: 'listPlatformInternalAccounts',
    summary: "List the platform's own internal accounts (one per supported currency)",
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: PlatformInternalAccountListQuery,
    responses: { 200: { description: 'The accounts', schema: PlatformInternalAccountList }, ...errorResponses(400, 401, 403) },
    handler: async (c) => json(await listPlatformInternalAccounts(c.db, c.auth.platform, c.query, c.now, c.settings.mode)),
  }),
];

export const sandboxFundRoutes = [
  defineRoute({
    method: 'POST',
    path: '/sandbox/internal-accounts/:accountId/fund',
    operationId: 'sandboxFundInternalAccount',
    summary: 'Sandbox: add funds to an internal account at once',
    tag: 'Sandbox',
    auth: 'basic',
    permission: 'TRANSACT',
    params: AccountIdParams,
    body: SandboxFundRequest,
    responses: { 200: { description: 'The funded account', schema: InternalAccount }, ...errorResponses(400, 401, 403, 404, 409, 413) },
    load: ({ db, platformId, params }) => ({ account: internalAccountLoad(db, platformId, params.accountId) }),
    handler: async (c) => {
      const account = await fundInternalAccount(c.db, c.env.JOBS, c.settings.mode, c.loaded.account[0], c.body.amount, c.now);
      return json(internalAccountView(account, c.settings.mode));
    },
  }),
];

/** Internal accounts, and the sandbox's funding of them. */
export const accountRoutes = [...internalAccountRoutes, ...sandboxFundRoutes];
