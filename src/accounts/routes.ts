// The internal-account routes: customers' and the platform's accounts, and an embedded wallet's privacy.
import type * as z from 'zod';
import { defineRoute, json, type Ctx, type RouteSpec } from '../http/route';
import { mapPage } from '../http/pagination';
import { errorResponses } from '../http/responses';
import {
  InternalAccount,
  InternalAccountIdParams,
  InternalAccountList,
  InternalAccountListQuery,
  InternalAccountUpdate,
  PlatformInternalAccountList,
  PlatformInternalAccountListQuery,
} from './internal-schema';
import {
  internalAccountView,
  customerInternalAccountList,
  listPlatformInternalAccounts,
  setInternalAccountPrivacy,
} from './internal-service';

const tag = 'Internal Accounts';

/**
 * The embedded wallet's signed retry that authorises a privacy change. wallet/ (a floor above)
 * provides it and the router passes it in: the headers and 202 schema it documents, and `authorize`, which
 * answers the challenge, or the wallet's account id once the signed retry holds.
 */
export interface WalletPrivacySigning {
  headers: NonNullable<RouteSpec<'basic', unknown, unknown, unknown>['headers']>;
  challenge: z.ZodType;
  authorize(
    c: Ctx<'basic'>,
    accountId: string,
    privateEnabled: boolean,
  ): Promise<{ status: 'challenge'; body: Record<string, unknown> } | { status: 'done'; accountId: string }>;
}

/** Internal accounts; the wallet's signing comes from the router (see `WalletPrivacySigning`). */
export const accountRoutes = (signing: WalletPrivacySigning) => [
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
  defineRoute({
    method: 'PATCH',
    path: '/internal-accounts/:id',
    operationId: 'updateInternalAccount',
    summary: "Update an embedded wallet's privacy (signed retry)",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: InternalAccountIdParams,
    body: InternalAccountUpdate,
    headers: signing.headers,
    responses: {
      200: { description: 'The updated account', schema: InternalAccount },
      202: { description: 'Signed-retry challenge: sign payloadToSign and retry', schema: signing.challenge },
      ...errorResponses(400, 401, 403, 404),
    },
    handler: async (c) => {
      const { privateEnabled } = c.body;
      const result = await signing.authorize(c, c.params.id, privateEnabled);
      if (result.status === 'challenge') return json(result.body, 202);
      return json(internalAccountView(await setInternalAccountPrivacy(c.db, result.accountId, privateEnabled, c.now), c.settings.mode));
    },
  }),
];
