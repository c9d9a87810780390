// POST /sandbox/fixtures: builds a sandbox world from one document, each step through the API's own routes in-process.
import { defineRoute, json, type Ctx, type RouteDef } from '../http/route';
import { errorResponses } from '../http/responses';
import { readJson } from '../http/body';
import { ApiError, ERRORS, invalidFields, SHOULD_RETRY_HEADER, zodIssues, type ErrorCode } from '../http/errors';
import type { OperationAnswer, OperationCalls } from '../http/call';
import { FIXTURE_LIMITS, FixtureDocument, FixtureResult } from './fixtures-schema';
import { applyFixtures, jsonPath, planFixtures, type CallApi } from './fixtures-service';
import { withRollback } from './fixtures-rollback';

const PATH = '/sandbox/fixtures';

/**
 * Runs operations as the caller, in process (`calls`: each as its HTTP request would run), each step reading at
 * the primary (as every platform request does), so it sees what the earlier ones wrote. Each step's key derives from this call and the step's number, so a retried
 * step is safe. Steps skip the rate limiter: the fixtures request itself was counted (as an expensive call).
 */
function inProcess(c: Ctx<'basic'>, calls: OperationCalls, routes: readonly RouteDef[]): CallApi {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  const call = calls({ ...c, settings: { ...c.settings, rateLimits: false } });
  const credentials = { authorization: c.request.headers.get('Authorization')! };
  const callId = crypto.randomUUID();
  let n = 0;
  return async (operationId, params, body, query) => {
    const idempotencyKey = byId.get(operationId)!.idempotent ? `fixtures:${callId}:${n++}` : undefined;
    const answer = await call(operationId, { params, query, body, idempotencyKey }, credentials);
    if (answer.status >= 300) throw refusalOf(operationId, answer);
    return answer.body;
  };
}

/** A step's refusal as the error it answered: its code, message, details, reason and retry headers. */
function refusalOf(operationId: string, answer: OperationAnswer): ApiError {
  const e = answer.body as { code?: string; message?: string; details?: Record<string, unknown>; reason?: string } | undefined;
  if (!e?.code || !(e.code in ERRORS)) return new ApiError('CONFLICT', `${operationId} answered ${answer.status}`);
  const headers: Record<string, string> = {};
  for (const name of ['Retry-After', SHOULD_RETRY_HEADER]) {
    const value = answer.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return new ApiError(e.code as ErrorCode, e.message ?? '', e.details, headers, e.reason);
}

/** The route; `routes` is the API's route table, whose operations the steps run through `calls`. */
export const fixtureRoutes = (routes: () => readonly RouteDef[], calls: OperationCalls): RouteDef[] => [
  {
    ...defineRoute({
      method: 'POST',
      path: PATH,
      operationId: 'loadSandboxFixtures',
      summary: 'Sandbox: create customers, accounts, balances, wallets, agents and payments from one document, all or nothing',
      tag: 'Sandbox',
      auth: 'basic',
      permission: 'TRANSACT',
      expensive: true,
      responses: {
        201: { description: 'Created: ids by ref, counts, agent device codes or tokens', schema: FixtureResult },
        ...errorResponses(400, 401, 403, 404, 409, 413, 415),
      },
      handler: async (c) => {
        // Read here, not by the runner: a document may be far larger than an ordinary body.
        const raw = (await readJson(c.request, FIXTURE_LIMITS.bytes)).value;
        const parsed = FixtureDocument.safeParse(raw);
        if (!parsed.success)
          throw invalidFields(
            'fixture document',
            zodIssues(parsed.error).map((i) => ({ ...i, field: jsonPath(i.field) })),
          );
        const steps = await planFixtures(parsed.data, c.auth.platform, routes());
        const call = inProcess(c, calls, routes());
        return json(await withRollback(c, () => applyFixtures(steps, call)), 201);
      },
    }),
    // Documented like any body; the handler reads it (the runner's limit is an ordinary body's).
    body: FixtureDocument,
  },
];
