// GET /sandbox/emails: the e-mails the service sent (OTP codes), read from the wallet's sandbox outbox.
import * as z from 'zod';
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { cursorParam, limitParam, pageOf } from '../http/pagination';
import { SandboxEmail } from '../wallet/schema';
import { sandboxEmailList } from '../wallet/email';

export const sandboxEmailRoutes = [
  defineRoute({
    method: 'GET',
    path: '/sandbox/emails',
    operationId: 'listSandboxEmails',
    summary: 'Sandbox: e-mails the service sent (OTP codes), newest first',
    tag: 'Sandbox',
    auth: 'basic',
    permission: 'VIEW',
    query: z.object({ to: z.string().max(320).optional(), limit: limitParam, cursor: cursorParam }),
    responses: {
      200: { description: 'A page of e-mails', schema: pageOf(SandboxEmail, 'SandboxEmailListResponse') },
      ...errorResponses(400, 401, 403, 404),
    },
    load: ({ db, platformId, query }) => sandboxEmailList.loads(db, platformId, query),
    handler: (c) => json(sandboxEmailList.from(c.query, c.loaded)),
  }),
];
