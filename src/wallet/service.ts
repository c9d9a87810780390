// Embedded wallets from D1: the wallet of an account, the id index, session ids, views and failures.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { newId } from '../crypto/ids';
import type { Env } from '../env';
import { loadTogether, type Db, type Loaded } from '../db/client';
import { insertSelect } from '../db/insert-select';
import { customers, internalAccounts, walletAuthIndex, type InternalAccountRow } from '../db/schema';
import { iso } from '../common/time';
import { ApiError, FINAL_CONFLICT_HEADERS, notFound, statusOf } from '../http/errors';
import type { AccountDO } from './account-do';
import { firstCredentialId, type AccountMeta, type AuthMethodView, type Failure, type SessionView } from './account-protocol';

/** An embedded-wallet account of the calling platform, with its Durable Object. */
export interface Wallet {
  accountId: string;
  platformId: string;
  customerId: string | null;
  email: string | null;
  stub: DurableObjectStub<AccountDO>;
}

const accountNotFound = () => notFound('INTERNAL_ACCOUNT_NOT_FOUND', 'Embedded wallet internal account not found');

function walletOf(
  ns: Env['ACCOUNT'],
  row: { accountId: string; platformId: string; customerId: string | null; email: string | null },
): Wallet {
  return { ...row, stub: ns.get(ns.idFromName(row.accountId)) };
}

const walletColumns = {
  accountId: internalAccounts.id,
  platformId: internalAccounts.platformId,
  customerId: internalAccounts.customerId,
  email: customers.email,
};

/** The EMBEDDED_WALLET account `accountId` of this platform as a load (`platformId` SQL: see `RouteSpec.load`). */
export function walletLoads(db: Db, platformId: SQL, accountId: string) {
  return {
    wallet: db
      .select(walletColumns)
      .from(internalAccounts)
      .leftJoin(customers, eq(customers.id, internalAccounts.customerId))
      .where(
        and(eq(internalAccounts.id, accountId), eq(internalAccounts.platformId, platformId), eq(internalAccounts.type, 'EMBEDDED_WALLET')),
      )
      .limit(1),
  };
}

/** The wallet `walletLoads` read (404 for anything else, other platforms included). */
export function walletFrom(ns: Env['ACCOUNT'], loaded: Loaded<ReturnType<typeof walletLoads>>): Wallet {
  const row = loaded.wallet[0];
  if (!row) throw accountNotFound();
  return walletOf(ns, row);
}

/** `walletLoads` of a platform known by id, run. */
export async function walletByAccount(db: Db, ns: Env['ACCOUNT'], platformId: string, accountId: string): Promise<Wallet> {
  return walletFrom(ns, await loadTogether(db, walletLoads(db, sql`${platformId}`, accountId)));
}

const byAuthId = (db: Db, platformId: SQL, id: string) =>
  db
    .select(walletColumns)
    .from(walletAuthIndex)
    .innerJoin(internalAccounts, eq(internalAccounts.id, walletAuthIndex.accountId))
    .leftJoin(customers, eq(customers.id, internalAccounts.customerId))
    .where(and(eq(walletAuthIndex.id, id), eq(walletAuthIndex.platformId, platformId)))
    .limit(1);

/** The wallet holding credential or session `id` (via the id index), for endpoints that name only that id. */
export async function walletByAuthId(db: Db, ns: Env['ACCOUNT'], platformId: string, id: string, missing: () => ApiError): Promise<Wallet> {
  const [row] = await byAuthId(db, sql`${platformId}`, id);
  if (!row) throw missing();
  return walletOf(ns, row);
}

/**
 * Statements finding the wallet of credential `id` and reserving the index row of a new session id for it
 * (nothing is inserted when `id` is unknown), as loads of the authentication round trip (`RouteSpec.load`);
 * `reservedSession` reads their results. A refused issue gives the id back with `releaseSessionId`; until the
 * account commits the session, the id answers 404 like any unknown id.
 */
export function reserveSession(db: Db, platformId: SQL, id: string, now: number) {
  const sessionId = newId('Session', now);
  return {
    wallet: byAuthId(db, platformId, id),
    reserved: insertSelect(
      db,
      walletAuthIndex,
      { id: sessionId, accountId: walletAuthIndex.accountId, platformId: walletAuthIndex.platformId, createdAt: now },
      sql`FROM ${walletAuthIndex} WHERE ${walletAuthIndex.id} = ${id} AND ${walletAuthIndex.platformId} = ${platformId}`,
    ).returning({ id: walletAuthIndex.id }),
  };
}

/** The wallet and the session id `reserveSession` found and reserved (`missing` when the credential is unknown). */
export function reservedSession(
  ns: Env['ACCOUNT'],
  loaded: Loaded<ReturnType<typeof reserveSession>>,
  missing: () => ApiError,
): { wallet: Wallet; sessionId: string } {
  const row = loaded.wallet[0];
  const sessionId = loaded.reserved[0]?.id;
  if (!row || !sessionId) throw missing();
  return { wallet: walletOf(ns, row), sessionId };
}

/** Removes the index row of a session that was not issued (best effort: a leftover row only answers 404). */
export async function releaseSessionId(db: Db, platformId: string, sessionId: string): Promise<void> {
  try {
    await db.delete(walletAuthIndex).where(and(eq(walletAuthIndex.id, sessionId), eq(walletAuthIndex.platformId, platformId)));
  } catch {
    // see above
  }
}

/**
 * The wallet id index is written here only, on the Worker side: the AccountDO never writes D1. Ids of new
 * credentials and sessions are reserved before the account is asked to create them; an id whose creation
 * is then refused stays an unused index row, which answers 404 like any unknown id.
 */
export async function reserveAuthId(db: Db, wallet: Wallet, type: 'AuthMethod' | 'Session', now: number): Promise<string> {
  const id = newId(type, now);
  await db.insert(walletAuthIndex).values({ id, accountId: wallet.accountId, platformId: wallet.platformId, createdAt: now });
  return id;
}

/** The index rows of new accounts: an embedded wallet's first credential id (`firstCredentialId`). */
export function newAccountIndexRows(accounts: InternalAccountRow[]): (typeof walletAuthIndex.$inferInsert)[] {
  return accounts
    .filter((a) => a.type === 'EMBEDDED_WALLET')
    .map((a) => ({ id: firstCredentialId(a.id), accountId: a.id, platformId: a.platformId, createdAt: a.createdAt }));
}

/** The wallet of a customer (its one EMBEDDED_WALLET account), if it has one. */
export async function walletOfCustomer(db: Db, ns: Env['ACCOUNT'], platformId: string, customerId: string): Promise<Wallet | undefined> {
  const [row] = await db
    .select(walletColumns)
    .from(internalAccounts)
    .leftJoin(customers, eq(customers.id, internalAccounts.customerId))
    .where(
      and(
        eq(internalAccounts.customerId, customerId),
        eq(internalAccounts.platformId, platformId),
        eq(internalAccounts.type, 'EMBEDDED_WALLET'),
      ),
    )
    .limit(1);
  return row && walletOf(ns, row);
}

export function metaOf(w: Wallet, now: number): AccountMeta {
  return { accountId: w.accountId, platformId: w.platformId, email: w.email, now };
}

/** An expected refusal from the account, in the spec's error shape. */
export function failure(f: Failure): ApiError {
  const details =
    f.fields || f.reason ? { ...(f.fields ? { fields: f.fields } : {}), ...(f.reason ? { reason: f.reason } : {}) } : undefined;
  // The account's 409s are duplicates (a credential that exists): final.
  const headers =
    f.retryAfterSeconds !== undefined
      ? { 'Retry-After': String(f.retryAfterSeconds) }
      : statusOf(f.code) === 409
        ? FINAL_CONFLICT_HEADERS
        : undefined;
  return new ApiError(f.code, f.message, details, headers, f.reason);
}

export function authMethodJson(v: AuthMethodView) {
  const { createdAt, updatedAt, ...rest } = v;
  return { ...rest, createdAt: iso(createdAt), updatedAt: iso(updatedAt) };
}

export function sessionJson(v: SessionView) {
  const { createdAt, updatedAt, expiresAt, ...rest } = v;
  return { ...rest, createdAt: iso(createdAt), updatedAt: iso(updatedAt), expiresAt: iso(expiresAt) };
}
