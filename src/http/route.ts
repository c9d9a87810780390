// defineRoute: one endpoint's declaration, and the runner every request takes (authenticate, validate, load, claim, handle, commit).
import * as z from 'zod';
import { sql, type SQL } from 'drizzle-orm';
import type { Env, Settings } from '../env';
import type { Db, Loaded, Loads } from '../db/client';
import type { AgentRow, Permission } from '../db/schema';
import { authenticate, type CredentialLookups, type Principals } from './auth';
import { admit, forgetCredentials, rememberPlatform } from './rate-limit';
import { requestSession, withBookmark } from './session';
import { strictBody } from './body';
import { readInput, strictQuery } from './input';
import { forbidden } from './errors';
import type { Logger } from './log';
import { commitChange, isChange, type Change } from './change';
import {
  claimInAuthBatch,
  d1Store,
  IDEMPOTENCY_HEADER,
  idempotencyHeaderDoc,
  keyOf,
  runIdempotent,
  type ClaimLoads,
  type IdempotentOption,
} from './idempotency';
import { json } from './responses';
import { afterHandling, beforeHandling, fireFault } from './faults';

/** What the router gives every route besides the request: settings, the request's logger, credential lookups. */
interface RunDeps {
  settings: Settings;
  log: Logger;
  credentials: CredentialLookups;
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

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, string>;
}

/** What `RouteSpec.load` gets: the valid input, and SQL for the platform the credentials authenticate. */
export interface LoadInput<B, P = unknown, Q = unknown> {
  db: Db;
  request: Request;
  params: P;
  query: Q;
  body: B;
  rawBody: string;
  platformId: SQL;
  /** Agent-bearer routes: SQL for the authenticated agent's id (NULL when authentication fails). */
  agentId: SQL;
  /** The wall clock `c.now` derives from (`c.now` adds the platform's sandbox clock offset). */
  now: number;
}

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
  params?: z.ZodType<P>;
  /** Path parameters that are secrets (a redeemable code): log lines show their `:name`, never the value. */
  secretParams?: readonly (keyof P & string)[];
  /** A `z.object`; a parameter it does not declare is 400, never ignored. */
  query?: z.ZodType<Q>;
  /** A zod schema for a JSON body, or `multipart` when the handler reads the form itself. */
  body?: z.ZodType<B> | 'multipart';
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
  // Unknown fields are refused at every depth of a JSON body; the OpenAPI document shows the same schema.
  const body = spec.body && spec.body !== 'multipart' ? strictBody(spec.body) : spec.body;
  const input = { params: spec.params, query: strictQuery(spec), body };
  const run: RouteDef['run'] = async (request, env, exec, { settings, log, credentials }) => {
    refuseCrossSiteWrite(request);
    // Before any D1 work: a request over its platform's budget costs nothing more (see rate-limit.ts).
    const limited = await admit(env, settings, request, spec);
    // The one place a request's database is chosen: a D1 session (primary or replica, see session.ts).
    const session = requestSession(env.DB, request, spec.auth);
    const db = session.db;
    const wall = Date.now();
    // With loads (or a key to claim) the input is read first, so an invalid request adds nothing to the
    // authentication round trip; its error still comes after authentication's.
    const early = spec.load || spec.idempotent ? await readInput(input, request).catch((error: unknown) => ({ error })) : undefined;
    const valid = early && !('error' in early) ? early : undefined;
    const keyed = spec.idempotent && valid ? keyOf(request, valid.rawBody) : undefined;
    const claim = keyed && !('error' in keyed) ? keyed : undefined;
    // A load refusing the input (an invalid cursor) refuses it after authentication, like validation does.
    let refused: { error: unknown } | undefined;
    const load =
      valid && (spec.load || claim) && !session.refused
        ? (platformId: SQL, agentId: SQL = sql`NULL`) => {
            try {
              const loads = spec.load?.({
                db,
                request,
                params: valid.params as P,
                query: valid.query as Q,
                body: valid.body as B,
                rawBody: valid.rawBody,
                platformId,
                agentId,
                now: wall,
              });
              // The claim first: the route's loads see the key as claimed.
              if (!claim) return loads ?? {};
              const scope = spec.idempotent!.scope === 'agent' ? sql`'agent:' || ${agentId}` : 'platform';
              return { ...claimInAuthBatch(db, scope, claim, platformId, wall), ...loads };
            } catch (error) {
              refused = { error };
              return {};
            }
          }
        : undefined;
    const { principal: auth, loaded } = await authenticate(spec.auth, request, {
      db,
      settings,
      credentials,
      permission: spec.permission,
      load,
    }).catch((error: unknown) => {
      forgetCredentials(limited);
      throw error;
    });
    rememberPlatform(limited, auth && 'platform' in auth ? auth.platform.id : undefined);
    if (spec.permission && auth && 'permissions' in auth && !auth.permissions.includes(spec.permission)) {
      throw forbidden(`This API token lacks the ${spec.permission} permission`);
    }
    const anyOf = spec.agentPermission && [spec.agentPermission].flat();
    if (anyOf && auth && 'agent' in auth && !anyOf.some((p) => auth.agent.policy.permissions.includes(p))) {
      // A key claimed with authentication is given back: this refusal is not the key's answer.
      const token = (loaded as Partial<Loaded<ClaimLoads>>).idempotencyClaim?.[0]?.claimToken;
      if (claim && token)
        await d1Store.release(db, { platformId: auth.platform.id, scope: `agent:${auth.agent.id}`, key: claim.key, token });
      throw forbidden(`The agent's policy does not grant ${anyOf.join(' or ')}`);
    }
    if (session.refused) throw session.refused;
    if (early && 'error' in early) throw early.error;
    if (refused) throw refused.error;
    if (keyed && 'error' in keyed) throw keyed.error;
    const { params, query, body, rawBody } = valid ?? (await readInput(input, request));
    const now = wall + (auth && 'platform' in auth ? auth.platform.clockOffsetMs : 0);
    const handle = async () =>
      spec.handler({
        request,
        env,
        exec,
        settings,
        log,
        db,
        // A platform's sandbox clock may run ahead (sandbox clock advance); everything it does uses that time.
        now,
        auth: auth as Principals[A],
        params: params as P,
        query: query as Q,
        body: body as B,
        rawBody,
        // The loads ran in authentication's batch; auth/ returns their results by name, untyped.
        loaded: loaded as Loaded<L>,
      });
    // Sandbox fault rules (faults.ts): the platform row brought them; none that match means no work at all.
    const platform = auth && 'platform' in auth ? auth.platform : undefined;
    const fired =
      platform &&
      (await fireFault(db, settings, platform, request, { method: spec.method, route: spec.path, input: { params, query, body } }, now));
    const instead = fired && (await beforeHandling(fired));
    if (instead) {
      // Nothing was done: a key claimed with authentication is given back, so a retry acts.
      const token = (loaded as Partial<Loaded<ClaimLoads>>).idempotencyClaim?.[0]?.claimToken;
      if (claim && token && platform)
        await d1Store.release(db, { platformId: platform.id, scope: claimScope(spec, auth), key: claim.key, token });
      return withBookmark(instead, session);
    }
    const deps = { db, queue: env.JOBS, log };
    let response: Response;
    if (claim && auth && 'platform' in auth) {
      const url = new URL(request.url);
      const scope = claimScope(spec, auth);
      const idempotent = { platformId: auth.platform.id, scope, key: request.headers.get(IDEMPOTENCY_HEADER), now };
      response = await runIdempotent(
        deps,
        { ...idempotent, method: request.method, path: url.pathname + url.search, body: rawBody },
        handle,
        { replays: spec.idempotent!.replays, claimed: loaded as Loaded<ClaimLoads> },
      );
    } else {
      const result = await handle();
      if (isChange(result)) {
        const done = await commitChange(deps, result);
        response = json(done.body, done.status);
      } else response = result;
    }
    return withBookmark(fired ? await afterHandling(fired, response) : response, session);
  };
  // An idempotent route documents its header from the same declaration that makes it honour it.
  const headers = spec.idempotent ? { ...idempotencyHeaderDoc, ...spec.headers } : spec.headers;
  return { ...(spec as unknown as RouteSpec<AuthKind, unknown, unknown, unknown, Loads>), body, headers, run };
}

/** The key space of a route's Idempotency-Key for this principal: the agent's own, or the platform's. */
function claimScope(spec: { idempotent?: IdempotentOption }, auth: Principals[AuthKind]): string {
  return spec.idempotent?.scope === 'agent' && auth && 'agent' in auth ? `agent:${auth.agent.id}` : 'platform';
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
