// POST /sandbox/reset: the platform's sandbox data deleted, its tokens and configuration kept.
import { defineRoute, noContent } from '../http/route';
import { errorResponses } from '../http/responses';
import { resetPlatform } from './reset';

export const resetRoutes = [
  defineRoute({
    method: 'POST',
    path: '/sandbox/reset',
    operationId: 'sandboxReset',
    summary: "Sandbox: delete all of this platform's data except its API tokens and configuration, and reset its clock",
    tag: 'Sandbox',
    auth: 'basic',
    permission: 'MANAGE',
    responses: { 204: { description: 'Reset' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await resetPlatform(c.db, c.env.DOCUMENTS, c.auth.platform.id);
      return noContent();
    },
  }),
];
