// Authentication: HTTP Basic API tokens, agent bearer tokens and the operator token, as principals (lookups come in).
import type { SQL } from 'drizzle-orm';
import type { Settings } from '../env';
import type { Db, Loads } from '../db/client';
import type { AgentRow, Permission, PlatformRow, ApiTokenRow } from '../db/schema';
import { fromBase64 } from '../crypto/base64';
import { constantTimeEqual } from '../crypto/otp';
import { hashSecret, safeEqual } from '../crypto/secrets';
import { ApiError, noRoute, unauthorized } from './errors';

/** A platform authenticated by one of its API tokens (HTTP Basic). */
interface PlatformPrincipal {
  kind: 'platform';
  platform: PlatformRow;
  tokenId: string;
  permissions: Permission[];
}

interface OperatorPrincipal {
  kind: 'operator';
}

/** A software agent authenticated by its bearer token: bound to one customer of one platform. */
interface AgentPrincipal {
  kind: 'agent';
  agent: AgentRow;
  platform: PlatformRow;
}

/** The principal each route auth kind yields. */
export interface Principals {
  none: null;
  basic: PlatformPrincipal;
  operator: OperatorPrincipal;
  agent: AgentPrincipal;
}

// Compared against when the clientId is unknown, so both paths hash and compare once.
const DUMMY_HASH = hashSecret('no-such-token');

/**
 * Named statements a route runs in the authentication round trip (see `RouteSpec.load`). `platformId` (and
 * for an agent `agentId`) is SQL for the authenticated platform's id, NULL unless the credentials and the
 * route's permission hold.
 */
export type AuthLoads = (platformId: SQL, agentId?: SQL) => Loads;
/** Their results by name (typed by the route that declared them). */
type AuthLoaded = Record<string, unknown>;

type Found<T> = Promise<T | undefined>;

/**
 * The stored credentials authentication reads. Their tables belong to their areas (platform tokens, agent
 * tokens), so the top of the house (router.ts) passes the lookups in; http/ imports no area.
 */
export interface CredentialLookups {
  tokenWithPlatform(db: Db, clientId: string): Found<{ token: ApiTokenRow; platform: PlatformRow }>;
  /** The same lookup batched with the route's loads (one round trip); `results` are theirs, by name. */
  tokenWithPlatformAnd(
    db: Db,
    clientId: string,
    secretHash: string,
    permission: Permission | undefined,
    loads: AuthLoads,
  ): Promise<{ found: { token: ApiTokenRow; platform: PlatformRow } | undefined; results: AuthLoaded }>;
  agentByToken(db: Db, tokenHash: string): Found<{ agent: AgentRow; platform: PlatformRow }>;
  /** The same lookup batched with the route's loads (one round trip). */
  agentByTokenAnd(
    db: Db,
    tokenHash: string,
    loads: AuthLoads,
  ): Promise<{ found: { agent: AgentRow; platform: PlatformRow } | undefined; results: AuthLoaded }>;
}

export async function authenticate(
  kind: keyof Principals,
  request: Request,
  deps: { db: Db; settings: Settings; credentials: CredentialLookups; permission?: Permission; load?: AuthLoads },
): Promise<{ principal: Principals[keyof Principals]; loaded: AuthLoaded }> {
  switch (kind) {
    case 'none':
      return { principal: null, loaded: {} };
    case 'operator':
      return { principal: authenticateOperator(request, deps.settings), loaded: {} };
    case 'basic':
      return authenticateBasic(request, deps.db, deps.credentials, deps.permission, deps.load);
    case 'agent':
      return authenticateAgent(request, deps.db, deps.credentials, deps.load);
  }
}

async function authenticateBasic(
  request: Request,
  db: Db,
  lookups: CredentialLookups,
  permission?: Permission,
  load?: AuthLoads,
): Promise<{ principal: PlatformPrincipal; loaded: AuthLoaded }> {
  const refused = () => unauthorized(!fromScript(request));
  const credentials = parseBasic(request.headers.get('Authorization'));
  if (!credentials) throw refused();
  const secretHash = hashSecret(credentials.secret);
  const { found, results } = load
    ? await lookups.tokenWithPlatformAnd(db, credentials.clientId, secretHash, permission, load)
    : { found: await lookups.tokenWithPlatform(db, credentials.clientId), results: {} };
  // Two SHA-256 hex digests: equal lengths, so a constant-time comparison of the strings is enough.
  const ok = constantTimeEqual(secretHash, found?.token.secretHash ?? DUMMY_HASH);
  if (!found || !ok) throw refused();
  return {
    principal: { kind: 'platform', platform: found.platform, tokenId: found.token.id, permissions: found.token.permissions },
    loaded: results,
  };
}

/**
 * A page's script marks its calls `X-Requested-With: XMLHttpRequest` (the convention Spring Security follows).
 * Its 401 carries no `WWW-Authenticate: Basic`, which would make the browser open its own credentials dialog
 * even for a fetch(); every other client is challenged as usual.
 */
function fromScript(request: Request): boolean {
  return request.headers.get('X-Requested-With')?.toLowerCase() === 'xmlhttprequest';
}

function parseBasic(header: string | null): { clientId: string; secret: string } | null {
  const match = header?.match(/^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i);
  if (!match) return null;
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(fromBase64(match[1]!));
  } catch {
    return null;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1 || decoded.length > 512) return null;
  return { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

// A token of a platform in another home than the first ends in its mark (`.<n>`, db/homes.ts).
const AGENT_BEARER = /^Bearer\s+([A-Za-z0-9_-]{16,128}(?:\.[1-9][0-9]{0,3})?)\s*$/;

/**
 * The credentials a request carries as the route's authentication reads them, one string for every spelling of
 * the same ones (`basic`, `BASIC`, extra spaces, another base64 alphabet or padding): the request budgets'
 * key. Undefined when the header holds none the route would accept.
 */
export function credentialsOf(kind: keyof Principals, header: string | null): string | undefined {
  if (kind === 'basic') {
    const parsed = parseBasic(header);
    return parsed ? `basic:${parsed.clientId}:${parsed.secret}` : undefined;
  }
  const token = kind === 'agent' ? header?.match(AGENT_BEARER)?.[1] : undefined;
  return token ? `agent:${token}` : undefined;
}

/** The credential that names the request's home: a Basic client id, an agent token (undefined: none). */
export function homeCredential(kind: keyof Principals, header: string | null): string | undefined {
  if (kind === 'basic') return parseBasic(header)?.clientId;
  return kind === 'agent' ? header?.match(AGENT_BEARER)?.[1] : undefined;
}

const agentUnauthorized = () =>
  new ApiError('UNAUTHORIZED', 'Missing or invalid agent access token', undefined, { 'WWW-Authenticate': 'Bearer realm="service-agent"' });

async function authenticateAgent(
  request: Request,
  db: Db,
  lookups: CredentialLookups,
  load?: AuthLoads,
): Promise<{ principal: AgentPrincipal; loaded: AuthLoaded }> {
  const match = request.headers.get('Authorization')?.match(AGENT_BEARER);
  if (!match) throw agentUnauthorized();
  // The hash is the lookup key: a token that is not stored finds nothing, so no secret is compared.
  const tokenHash = hashSecret(match[1]!);
  const { found, results } = load
    ? await lookups.agentByTokenAnd(db, tokenHash, load)
    : { found: await lookups.agentByToken(db, tokenHash), results: {} };
  if (!found) throw agentUnauthorized();
  return { principal: { kind: 'agent', agent: found.agent, platform: found.platform }, loaded: results };
}

function authenticateOperator(request: Request, settings: Settings): OperatorPrincipal {
  // Without the secret the operator surface does not exist at all.
  if (!settings.operatorToken) throw noRoute();
  const match = request.headers.get('Authorization')?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match || !safeEqual(match[1]!, settings.operatorToken)) {
    throw new ApiError('UNAUTHORIZED', 'Missing or invalid operator token', undefined, {
      'WWW-Authenticate': 'Bearer realm="service-operator"',
    });
  }
  return { kind: 'operator' };
}
