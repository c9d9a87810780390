// defineRoute: one endpoint's declaration, and the runner every request takes: its stages, composed in one place.
import type * as z from 'zod';
import type { Env, Settings } from '../env';
import type { Db, Loaded, Loads } from '../db/client';
import type { AgentRow, Permission } from '../db/schema';
import type { CredentialLookups, Principals } from './auth';
import { admit } from './rate-limit';
import { requestSession, withBookmark } from './session';
import { strictBody } from './body';
import { readInput, refuseFirst, strictQuery } from './input';
import { authenticateWithLoads, readEarly, type LoadInput } from './auth-loads';
import { authorize } from './authorize';
import { ApiError, forbidden } from './errors';
import type { Logger } from './log';
import { committed, type Change } from './change';
import type { ResponseSpec } from './responses';
import {
  idempotencyHeaderDoc,
  idempotentRequest,
  releaseClaim,
  runIdempotent,
  type ClaimLoads,
  type IdempotentOption,
} from './idempotency';
import type { RunHooks } from './hooks';
import { homeEnv, movedHome, requestHome, type HomeOf } from './home';
import { homeD1 } from '../db/homes';

export type { LoadInput } from './auth-loads';
export type { ResponseSpec } from './responses';

/** What the router gives every route besides the request: settings, the request's logger, credential lookups, hooks. */
interface RunDeps {
  settings: Settings;
  log: Logger;
  credentials: CredentialLookups;
  /** What the router installs around handling (sandbox: fault rules); none in production. */
  hooks: RunHooks;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
type AgentPermissionName = AgentRow['policy']['permissions'][number];
type AuthKind = keyof Principals;

/** What a handler receives: parsed input, the authenticated principal, and its dependencies. */
export interface Ctx<A extends AuthKind = AuthKind, P = unknown, Q = unknown, B = unknown, L extends Loads = NoLoads> {
  request: Request;
  env: Env;
  exec: ExecutionContext;
  settings: Settings;
  log: Logger;
  db: Db;
  /** The request's home: the data database `db` is a session of (db/homes.ts); secrets issued here name it. */
  home: string;
  /** Request time in epoch ms; services take it as an argument so tests can move time. */
  now: number;
  auth: Principals[A];
  params: P;
  query: Q;
  body: B;
  /** The body exactly as received (JSON routes); signed retries hash its canonical form. */
  rawBody: string;
  /** Results of the route's `load` statements, by name (empty without one). */
  loaded: Loaded<L>;
}

type NoLoads = Record<never, never>;

export interface RouteSpec<A extends AuthKind, P, Q, B, L extends Loads = NoLoads> {
  method: Method;
  /** itty-router pattern below the version base, e.g. `/tokens/:tokenId`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: A;
  /** Required API-token permission (Basic auth only). */
  permission?: Permission;
  /** Agent-bearer routes: the agent-policy permission needed (a list: any one of them); none means any agent. */
  agentPermission?: AgentPermissionName | readonly AgentPermissionName[];
  /**
   * Agent-bearer routes where the agent acts for its customer (a write): a paused agent is refused (403), as a
   * policy without the permission is, before anything is done or its Idempotency-Key is recorded.
   */
  acting?: boolean;
  params?: z.ZodType<P>;
  /**
   * The operation revokes a credential (a token, an agent, a session, a passkey, the fault rules themselves):
   * no hook stands between a caller and it (a sandbox fault rule may not name it, and an older one that does is skipped).
   */
  revokes?: boolean;
  /** Path parameters that are secrets (a redeemable code): log lines show their `:name`, never the value. */
  secretParams?: readonly (keyof P & string)[];
  /** A `z.object`; a parameter it does not declare is 400, never ignored. */
  query?: z.ZodType<Q>;
  /** A zod schema for a JSON body, or `multipart` when the handler reads the form itself. */
  body?: z.ZodType<B> | 'multipart';
  /** With `body: 'multipart'`: the form's fields as a zod object, for the OpenAPI document only (the handler reads the form). */
  form?: z.ZodType;
  /** A call that also spends the platform's lower budget of expensive calls (a search, a bulk import). */
  expensive?: boolean | ((url: URL) => boolean);
  /** Extra request headers worth documenting (an `idempotent` route documents `Idempotency-Key` itself). */
  headers?: Record<string, { description: string; required?: boolean }>;
  responses: Record<number, ResponseSpec>;
  /**
   * Named statements to run in the authentication round trip, given the valid input; the handler gets their
   * typed results as `c.loaded`. `platformId` (and for agents `agentId`) is SQL for the authenticated
   * platform's id, NULL unless the credentials and `permission` hold, so statements filtered on it read and
   * write nothing for anyone else. A handler refusing later undoes what they wrote.
   */
  load?: (input: LoadInput<B, P, Q>) => L;
  /**
   * The route honours `Idempotency-Key`: the runner claims the key with authentication, runs the handler once,
   * commits the Change it returns together with the recorded answer, and replays that answer to repeats.
   */
  idempotent?: IdempotentOption;
  /** The operation moves money (an agent's payment): its MCP tool says so, and what it costs. */
  movesMoney?: boolean;
  /** The operation that acts on what this one creates (a quote and its execute): its MCP tool names it as the next step. */
  followUp?: string;
  /**
   * `auth: 'none'` routes that act on a platform's data: its home, from the valid input (db/homes.ts). Routes
   * with credentials are served in the home they name.
   */
  home?: HomeOf<P, B>;
  /** Answers with a Response, or with a Change the runner commits (its answer becomes the response). */
  handler: (c: Ctx<A, P, Q, B, L>) => Promise<Response | Change> | Response | Change;
}

export interface RouteDef extends RouteSpec<AuthKind, unknown, unknown, unknown, Loads> {
  run(request: Request, env: Env, exec: ExecutionContext, deps: RunDeps): Promise<Response>;
}

/** Declares one endpoint; the same declaration drives routing, validation and the OpenAPI document. */
export function defineRoute<
  A extends AuthKind,
  P = Record<string, never>,
  Q = Record<string, never>,
  B = undefined,
  L extends Loads = NoLoads,
>(spec: RouteSpec<A, P, Q, B, L>): RouteDef {
  // An agent's own key space, and its acting, need an agent.
  if ((spec.idempotent?.scope === 'agent' || spec.acting) && spec.auth !== 'agent')
    throw new Error(`${spec.operationId}: needs auth 'agent'`);
  // Unknown fields are refused at every depth of a JSON body; the OpenAPI document shows the same schema.
  const body = spec.body && spec.body !== 'multipart' ? strictBody(spec.body) : spec.body;
  const input = { params: spec.params, query: strictQuery(spec), body };
  // The stages read the declaration as every route's (their own types are structural).
  const route = spec as unknown as RouteSpec<AuthKind, unknown, unknown, unknown, Loads>;
  // The runner: its stages in order (docs/engineering/architecture.md, "A request's way through"). Each refusal is an answer in the spec's shape.
  const run: RouteDef['run'] = async (request, base, exec, { settings, log, credentials, hooks }) => {
    // 1. A browser page of another site writes nothing.
    refuseCrossSiteWrite(request);
    // 2. The rate limit, before any D1 work: a request over its platform's budget costs nothing more.
    const budget = await admit(base, settings, request, spec);
    // 3. The input and Idempotency-Key, read before authentication when loads or a claim ride on it, or a
    // route finds its home from them.
    const early = await readEarly(route, input, request, spec.home !== undefined);
    // 4–5. The request's home (its platform's database) and its D1 session there (primary or replica), the one
    // place its database is chosen; then authentication, with the route's loads and the key's claim in its
    // round trip (none under a bad bookmark).
    const wall = Date.now();
    const authenticateIn = async (home: string) => {
      const session = requestSession(homeD1(base, home), request, spec.auth);
      const ride = session.refused ? {} : early;
      const authed = await authenticateWithLoads(route, request, { db: session.db, settings, credentials, early: ride, wall, budget });
      return { home, session, authed };
    };
    const named = await requestHome(base, spec.auth, request, { home: route.home, input: early.input });
    const { home, session, authed } = await authenticateIn(named).catch(async (error: unknown) => {
      // Credentials of a platform moved away from the home they name: that home forwards them (one more round trip).
      const moved = error instanceof ApiError && error.is('UNAUTHORIZED') ? await movedHome(base, named, spec.auth, request) : undefined;
      if (!moved) throw error;
      return authenticateIn(moved);
    });
    const env = homeEnv(base, home);
    const { db } = session;
    const { auth, loaded, held } = authed;
    // 6. Permissions: the token's, the agent's policy, a paused agent; a refusal gives the claimed key back.
    await authorize(spec, auth, db, held);
    // 7. The input's refusals, after authentication's, in the order a client fixes them.
    refuseFirst(session.refused, early.refused, authed.refused, early.keyRefused);
    const { params, query, body, rawBody } = early.input ?? (await readInput(input, request));
    const platform = auth && 'platform' in auth ? auth.platform : undefined;
    // A platform's sandbox clock may run ahead (sandbox clock advance); everything it does uses that time.
    const now = wall + (platform?.clockOffsetMs ?? 0);
    // 8. The router's hook around handling (sandbox: fault rules; none in production), never around a revocation.
    const around =
      platform && !spec.revokes
        ? await hooks.aroundHandling?.({
            db,
            platform,
            request,
            method: spec.method,
            route: spec.path,
            input: { params, query, body },
            customerId: auth && 'agent' in auth ? auth.agent.customerId : undefined,
            now,
          })
        : undefined;
    if (around?.instead) {
      // Nothing was done: a key claimed with authentication is given back, so a retry acts.
      await releaseClaim(db, held);
      return withBookmark(around.instead, session);
    }
    // 9. The handler, once; its Change committed (with the key's record, under a key).
    const handle = async () =>
      spec.handler({
        request,
        env,
        exec,
        settings,
        log,
        db,
        home,
        now,
        auth: auth as Principals[A],
        params: params as P,
        query: query as Q,
        body: body as B,
        rawBody,
        // The loads ran in authentication's batch; auth/ returns their results by name, untyped.
        loaded: loaded as Loaded<L>,
      });
    const deps = { db, queue: env.JOBS, log };
    const response =
      platform && authed.scope !== undefined
        ? await runIdempotent(deps, idempotentRequest(request, platform.id, authed.scope, rawBody, now), handle, {
            replays: spec.idempotent!.replays,
            claimed: loaded as Loaded<ClaimLoads>,
          })
        : await committed(deps, await handle());
    // 10. The hook's change of the answer, and the session's bookmark.
    return withBookmark(around?.after ? await around.after(response) : response, session);
  };
  // An idempotent route documents its header from the same declaration that makes it honour it.
  const headers = spec.idempotent ? { ...idempotencyHeaderDoc, ...spec.headers } : spec.headers;
  return { ...route, body, headers, run };
}

/**
 * A browser marks every request with `Sec-Fetch-Site`. The API serves no CORS, so a browser page on another
 * site can only reach it with simple requests, which carry the browser's cached Basic credentials: the 415
 * rule stops those with a body, this stops the bodiless ones (execute, approve, reset). API clients send no
 * such header; `none` is a user's own navigation, `same-origin` a page served by the service itself.
 */
function refuseCrossSiteWrite(request: Request): void {
  const site = request.headers.get('Sec-Fetch-Site');
  if (request.method !== 'GET' && site !== null && site !== 'same-origin' && site !== 'none') {
    throw forbidden('Requests from a page of another site are refused');
  }
}

export { json, noContent } from './responses';
