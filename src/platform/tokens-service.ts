// API tokens: lookup with their platform (authentication), create, list, delete, and permission checks.
import { and, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import { named, type Db, type Loaded, type Loads } from '../db/client';
import { apiTokens, platforms, type ApiTokenRow, type Permission, type PlatformRow } from '../db/schema';
import { newId } from '../crypto/ids';
import { hashSecret, randomHex, randomToken } from '../crypto/secrets';
import { iso } from '../common/time';
import { issuedIn } from '../db/homes';
import { forbidden, notFound } from '../http/errors';
import { dateRangeOrder, keysetList, type KeysetQuery } from '../http/pagination';
import type { ApiToken } from './schema';

// A drizzle prepared statement: `sql.placeholder('clientId')` is its bind parameter, filled per call.
const prepareTokenLookup = (db: Db) =>
  db
    .select({ token: apiTokens, platform: platforms })
    .from(apiTokens)
    .innerJoin(platforms, eq(apiTokens.platformId, platforms.id))
    .where(eq(apiTokens.clientId, sql.placeholder('clientId')))
    .limit(1)
    .prepare();

// Every Basic authentication without a route `load` runs this query: its SQL is built once per client.
const tokenLookups = new WeakMap<Db, ReturnType<typeof prepareTokenLookup>>();

/** The token with its platform, in one query: authentication and the platform's config cost one round trip. */
export async function findTokenWithPlatform(db: Db, clientId: string) {
  let lookup = tokenLookups.get(db);
  if (!lookup) tokenLookups.set(db, (lookup = prepareTokenLookup(db)));
  const rows = await lookup.all({ clientId });
  return rows[0];
}

/**
 * `findTokenWithPlatform` together with named `more` statements in one round trip. `more` receives SQL for the
 * platform id that `clientId` and `secretHash` authenticate, with `permission`: NULL when they do not, so
 * statements filtered on it read and write nothing for anyone else (the caller still checks the token).
 */
export async function findTokenWithPlatformAnd(
  db: Db,
  clientId: string,
  secretHash: string,
  permission: Permission | undefined,
  more: (platformId: SQL) => Loads,
) {
  const permitted = permission ? sql` AND EXISTS (SELECT 1 FROM json_each(${apiTokens.permissions}) WHERE value = ${permission})` : sql``;
  const platformId = sql`(SELECT ${apiTokens.platformId} FROM ${apiTokens} WHERE ${apiTokens.clientId} = ${clientId} AND ${apiTokens.secretHash} = ${secretHash}${permitted})`;
  // Two plain selects: in a D1 batch, drizzle maps rows by position after D1 merged same-named columns,
  // so a join of two tables that both have `id` would come back garbled.
  const loads = more(platformId);
  const [tokens, platformRows, ...results] = (await db.batch([
    db.select().from(apiTokens).where(eq(apiTokens.clientId, clientId)).limit(1),
    db
      .select()
      .from(platforms)
      .where(eq(platforms.id, db.select({ id: apiTokens.platformId }).from(apiTokens).where(eq(apiTokens.clientId, clientId))))
      .limit(1),
    ...Object.values(loads),
  ])) as [ApiTokenRow[], PlatformRow[], ...unknown[]];
  const [token, platform] = [tokens[0], platformRows[0]];
  return { found: token && platform ? { token, platform } : undefined, results: named(loads, results) };
}

function tokenView(row: ApiTokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions,
    clientId: row.clientId,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Builds a new token row and its secret; the secret exists only in the returned view. Its client id names its platform's home. */
export function newToken(platformId: string, home: string, name: string, permissions: Permission[], now: number) {
  const clientSecret = randomToken(32);
  const row: ApiTokenRow = {
    id: newId('Token', now),
    platformId,
    name,
    permissions: [...new Set(permissions)],
    clientId: issuedIn(randomHex(16), home),
    secretHash: hashSecret(clientSecret),
    createdAt: now,
    updatedAt: now,
  };
  return { row, view: { ...tokenView(row), clientSecret } };
}

/**
 * 403 `FORBIDDEN` naming the permissions of `wanted` that `held` lacks (`details.missingPermissions`), before
 * anything is written: what a token (or an agent it sets up) is given never exceeds what the token holds.
 */
export function requireHeld(held: readonly Permission[], wanted: Iterable<Permission>, reason: string): void {
  const missing = [...new Set(wanted)].filter((p) => !held.includes(p));
  if (missing.length) throw forbidden(`${reason}: ${missing.join(', ')}`, { missingPermissions: missing });
}

/**
 * Creates a token for the caller's platform. A token grants only permissions it holds itself, so no token can
 * mint a stronger one; the operator endpoint alone makes a platform's first all-permission token.
 */
export async function createToken(
  db: Db,
  home: string,
  platformId: string,
  callerPermissions: Permission[],
  input: { name: string; permissions: Permission[] },
  now: number,
) {
  requireHeld(callerPermissions, input.permissions, 'This API token cannot grant permissions it lacks');
  const { row, view } = newToken(platformId, home, input.name, input.permissions, now);
  await db.insert(apiTokens).values(row);
  return view;
}

interface TokenFilters {
  name?: string;
  createdAfter?: number;
  createdBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
  limit: number;
  cursor?: string;
}

/**
 * GET /tokens: the platform's tokens by id (by that date under a date range), with the filters. The total only
 * unfiltered, from the platform's maintained count.
 */
export const tokenList = keysetList((platformId: SQL, f: TokenFilters): KeysetQuery<ApiTokenRow> => {
  const where: (SQL | undefined)[] = [eq(apiTokens.platformId, platformId)];
  if (f.name !== undefined) where.push(eq(apiTokens.name, f.name));
  if (f.createdAfter !== undefined) where.push(gte(apiTokens.createdAt, f.createdAfter));
  if (f.createdBefore !== undefined) where.push(lte(apiTokens.createdAt, f.createdBefore));
  if (f.updatedAfter !== undefined) where.push(gte(apiTokens.updatedAt, f.updatedAfter));
  if (f.updatedBefore !== undefined) where.push(lte(apiTokens.updatedAt, f.updatedBefore));
  return {
    table: apiTokens,
    idColumn: apiTokens.id,
    ...dateRangeOrder<ApiTokenRow>([
      [apiTokens.createdAt, (t) => t.createdAt, f.createdAfter !== undefined || f.createdBefore !== undefined],
      [apiTokens.updatedAt, (t) => t.updatedAt, f.updatedAfter !== undefined || f.updatedBefore !== undefined],
    ]),
    where: and(...where),
    limit: f.limit,
    cursor: f.cursor,
    counted: where.length === 1 ? { platformId, list: 'api_tokens' } : undefined,
  };
}, tokenView);

const tokenNotFound = () => notFound('TOKEN_NOT_FOUND', 'API token not found');

/** GET /tokens/{id} as a load (`platformId` SQL: see `RouteSpec.load`); `tokenFrom` reads it. */
export function tokenLoads(db: Db, platformId: SQL, tokenId: string) {
  return {
    token: db
      .select()
      .from(apiTokens)
      .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.platformId, platformId)))
      .limit(1),
  };
}

export function tokenFrom(loaded: Loaded<ReturnType<typeof tokenLoads>>): ApiToken {
  const row = loaded.token[0];
  if (!row) throw tokenNotFound();
  return tokenView(row);
}

/** Deletes at once: the next request with this token fails authentication. */
export async function deleteToken(db: Db, platformId: string, tokenId: string) {
  const deleted = await db
    .delete(apiTokens)
    .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.platformId, platformId)))
    .returning({ id: apiTokens.id });
  if (deleted.length === 0) throw tokenNotFound();
}
