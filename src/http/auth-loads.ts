// The runner's authentication stage: the credentials checked in one round trip with the route's loads and the
// Idempotency-Key's claim, and the rate limiter told whose credentials they were.
import { sql, type SQL } from 'drizzle-orm';
import type { Settings } from '../env';
import type { Db, Loaded, Loads } from '../db/client';
import type { Permission } from '../db/schema';
import { authenticate, type CredentialLookups, type Principals } from './auth';
import { forgetCredentials, rememberPlatform } from './rate-limit';
import { claimInAuthBatch, keyOf, keyScope, type ClaimLoads, type HeldKey, type IdempotentOption, type Keyed } from './idempotency';
import { readInput, type Input, type InputSchemas } from './input';

type AuthKind = keyof Principals;

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

/** What is read before authentication: the valid input and the request's key, or why they were refused. */
export interface Early {
  input?: Input;
  keyed?: Keyed;
  /** The input's refusal, answered after authentication's (as any invalid input is). */
  refused?: unknown;
  /** The Idempotency-Key's refusal (400), answered after the input's. */
  keyRefused?: unknown;
}

/**
 * For a route whose loads or key claim ride on authentication, its input and key are read first, so an invalid
 * request adds nothing to that round trip; their refusals still come after authentication's.
 */
export async function readEarly(route: AuthenticatedRoute, schemas: InputSchemas, request: Request, needed = false): Promise<Early> {
  if (!route.load && !route.idempotent && !needed) return {};
  const read: Early = await readInput(schemas, request).then(
    (input) => ({ input }),
    (refused: unknown) => ({ refused }),
  );
  const key = route.idempotent && read.input ? keyOf(request, read.input.rawBody) : undefined;
  if (!key) return read;
  return 'error' in key ? { ...read, keyRefused: key.error } : { ...read, keyed: key };
}

/** What the stage needs of a route. */
interface AuthenticatedRoute {
  auth: AuthKind;
  permission?: Permission;
  idempotent?: IdempotentOption;
  load?: (input: LoadInput<unknown>) => Loads;
}

export interface Authenticated {
  auth: Principals[AuthKind];
  /** The results of the route's loads (and of the key's claim), by name. */
  loaded: Record<string, unknown>;
  /** The key's space, when the request sent a valid key and authenticated as a platform's. */
  scope?: string;
  /** The key, when this request claimed it with authentication: given back if the request is refused before it acts. */
  held?: HeldKey;
  /** The route's `load` refused the input (an invalid cursor): refused after authentication, as invalid input is. */
  refused?: unknown;
}

/**
 * Authenticates the request. With its valid input read `early`, the route's loads and the key's claim (the
 * claim first: the loads see the key as claimed) ride on the credential lookup, filtered on the platform it
 * authenticates (`LoadInput.platformId`), so a refused request reads and writes nothing. `budget` is the rate
 * limiter's key for the credentials (`admit`): it learns their platform, or forgets them when they fail.
 */
export async function authenticateWithLoads(
  route: AuthenticatedRoute,
  request: Request,
  r: { db: Db; settings: Settings; credentials: CredentialLookups; early: Early; wall: number; budget?: string },
): Promise<Authenticated> {
  const { db, wall } = r;
  const { input, keyed } = r.early;
  let refused: unknown;
  const load =
    input && (route.load || keyed)
      ? (platformId: SQL, agentId: SQL = sql`NULL`) => {
          try {
            const loads = route.load?.({ db, request, ...input, platformId, agentId, now: wall });
            if (!keyed) return loads ?? {};
            return { ...claimInAuthBatch(db, keyScope(route.idempotent!, agentId), keyed, platformId, wall), ...loads };
          } catch (error) {
            refused = error;
            return {};
          }
        }
      : undefined;
  const { principal: auth, loaded } = await authenticate(route.auth, request, {
    db,
    settings: r.settings,
    credentials: r.credentials,
    permission: route.permission,
    load,
  }).catch((error: unknown) => {
    forgetCredentials(r.budget);
    throw error;
  });
  const platform = auth && 'platform' in auth ? auth.platform : undefined;
  rememberPlatform(r.budget, platform?.id);
  if (!keyed || !platform) return { auth, loaded, refused };
  const scope = keyScope(route.idempotent!, auth && 'agent' in auth ? auth.agent.id : undefined);
  const token = (loaded as Partial<Loaded<ClaimLoads>>).idempotencyClaim?.[0]?.claimToken;
  const held = token ? { platformId: platform.id, scope, key: keyed.key, token } : undefined;
  return { auth, loaded, scope, held, refused };
}
