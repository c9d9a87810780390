import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { sandboxEmails } from '../db/schema';
import { iso, DateTime } from '../common/time';
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { cursorParam, keysetPage, limitParam, mapPage, pageOf } from '../http/pagination';

const SandboxEmail = z
  .object({ id: z.string(), to: z.string(), from: z.string(), subject: z.string(), text: z.string(), createdAt: DateTime })
  .meta({ id: 'SandboxEmail' });

async function listEmails(db: Db, platformId: string, q: { to?: string; limit: number; cursor?: string }) {
  const page = await keysetPage<typeof sandboxEmails.$inferSelect>(db, {
    table: sandboxEmails,
    idColumn: sandboxEmails.id,
    where: and(eq(sandboxEmails.platformId, platformId), q.to ? eq(sandboxEmails.to, q.to) : undefined),
    order: 'desc',
    limit: q.limit,
    cursor: q.cursor,
  });
  return mapPage(page, ({ id, to, from, subject, text, createdAt }) => ({ id, to, from, subject, text, createdAt: iso(createdAt) }));
}

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
    handler: async (c) => json(await listEmails(c.db, c.auth.platform.id, c.query)),
  }),
];
