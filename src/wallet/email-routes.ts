import { and, eq, type SQL } from 'drizzle-orm';
import * as z from 'zod';
import { sandboxEmails } from '../db/schema';
import { iso, DateTime } from '../common/time';
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { cursorParam, keysetList, limitParam, pageOf } from '../http/pagination';

const SandboxEmail = z
  .object({ id: z.string(), to: z.string(), from: z.string(), subject: z.string(), text: z.string(), createdAt: DateTime })
  .meta({ id: 'SandboxEmail' });

/** The sandbox outbox, newest first. */
const emailList = keysetList(
  (platformId: SQL, q: { to?: string; limit: number; cursor?: string }) => ({
    table: sandboxEmails,
    idColumn: sandboxEmails.id,
    where: and(eq(sandboxEmails.platformId, platformId), q.to ? eq(sandboxEmails.to, q.to) : undefined),
    order: 'desc' as const,
    limit: q.limit,
    cursor: q.cursor,
  }),
  ({ id, to, from, subject, text, createdAt }: typeof sandboxEmails.$inferSelect) => ({
    id,
    to,
    from,
    subject,
    text,
    createdAt: iso(createdAt),
  }),
);

export const emailRoutes = [
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
    load: ({ db, platformId, query }) => emailList.loads(db, platformId, query),
    handler: (c) => json(emailList.from(c.query, c.loaded)),
  }),
];
