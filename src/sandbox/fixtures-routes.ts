// POST /sandbox/fixtures: builds a sandbox world from one document, each step through the API's own routes in-process.
import { defineRoute, json, type Ctx, type RouteDef } from '../http/route';
import { errorResponses } from '../http/responses';
import { readJson } from '../http/body';
import { ApiError, ERRORS, invalidFields, zodIssues } from '../http/errors';
import { IDEMPOTENCY_HEADER } from '../http/idempotency';
import type { CredentialLookups } from '../http/auth';
import { FIXTURE_LIMITS, FixtureDocument, FixtureResult } from './fixtures-schema';
import { applyFixtures, jsonPath, planFixtures, type CallApi } from './fixtures-service';
import { withRollback } from './fixtures-rollback';
import { faultsAround } from './faults';

const PATH = '/sandbox/fixtures';
const BOOKMARK_HEADER = 'X-D1-Bookmark';

/**
 * Runs operations as the caller, through each route's own runner (authentication, validation, idempotency,
 * rules), as an HTTP request would. Each step's key derives from this call and the step's number, so a retried
 * step is safe. Steps skip the rate limiter: the fixtures request itself was counted (as an expensive call).
 */
function inProcess(c: Ctx<'basic'>, routes: readonly RouteDef[], credentials: CredentialLookups): CallApi {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  const url = new URL(c.request.url);
  const base = url.pathname.slice(0, -PATH.length);
  const callId = crypto.randomUUID();
  const settings = { ...c.settings, rateLimits: false };
  let n = 0;
  let bookmark: string | null = null;
  return async (operationId, params, body, query) => {
    const route = byId.get(operationId)!;
    const target = new URL(url);
    target.pathname = base + route.path.replace(/:(\w+)/g, (_, k: string) => encodeURIComponent(params[k]!));
    target.search = new URLSearchParams(query).toString();
    const headers = new Headers({ Authorization: c.request.headers.get('Authorization')! });
    if (route.idempotent) headers.set(IDEMPOTENCY_HEADER, `fixtures:${callId}:${n++}`);
    if (bookmark) headers.set(BOOKMARK_HEADER, bookmark);
    if (body !== undefined) headers.set('Content-Type', 'application/json');
    const request = new Request(target, { method: route.method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    // What the router would have matched: the runner reads path parameters from the request.
    Object.assign(request, { params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, encodeURIComponent(v)])) });
    const response = await route.run(request, c.env, c.exec, {
      settings,
      log: c.log,
      credentials,
      hooks: { aroundHandling: faultsAround },
    });
    bookmark = response.headers.get(BOOKMARK_HEADER) ?? bookmark;
    const text = await response.text();
    const answer = text ? JSON.parse(text) : undefined;
    // An idempotent route answers its refusal (recorded with the key) rather than throwing it.
    if (response.status >= 300)
      throw answer?.code in ERRORS
        ? new ApiError(answer.code, answer.message, answer.details, undefined, answer.reason)
        : new ApiError('CONFLICT', `${operationId} answered ${response.status}`);
    return answer;
  };
}

/** The route; `routes` is the API's route table, whose operations the steps run with the router's `credentials`. */
export const fixtureRoutes = (routes: () => readonly RouteDef[], credentials: CredentialLookups): RouteDef[] => [
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
        const steps = planFixtures(parsed.data, c.auth.platform, routes());
        const call = inProcess(c, routes(), credentials);
        return json(await withRollback(c, () => applyFixtures(steps, call)), 201);
      },
    }),
    // Documented like any body; the handler reads it (the runner's limit is an ordinary body's).
    body: FixtureDocument,
  },
];
