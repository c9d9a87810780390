// POST /sandbox/internal-accounts/{accountId}/fund: sandbox deposits into an internal account.
import { defineRoute } from '../http/route';
import { errorResponses } from '../http/responses';
import { AccountIdParams, InternalAccount, SandboxFundRequest } from '../accounts/internal-schema';
import { fundingChange, internalAccountLoad } from '../accounts/internal-service';

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
    handler: (c) => fundingChange(c.db, c.settings.mode, c.loaded.account[0], c.body.amount, c.now),
  }),
];
