// Internal accounts: the accounts a customer is born with, the view, lists, sandbox funding, privacy, events.
import { and, eq, exists, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { loadTogether, namedGuard, type Db, type Statement } from '../db/client';
import type { ServiceMode } from '../env';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { internalAccounts, type InternalAccountRow, type PlatformRow } from '../db/schema';
import { insertJsonRows } from '../db/json-rows';
import { currency, currencyInfo } from '../common/currencies';
import { iso } from '../common/time';
import { newId } from '../crypto/ids';
import { conflict, notFound } from '../http/errors';
import { keysetList, mapPage } from '../http/pagination';
import type { Change } from '../http/change';
import { movementStatements } from '../ledger/ledger';
import { fundingInstructions } from './funding-instructions';
import { sqlEventStatements } from '../webhooks/sql-events';
import { eventMessages } from '../webhooks/outbox';
import type { InternalAccountListQuery, InternalAccountView } from './internal-schema';

type AccountType = InternalAccountRow['type'];

/** INTERNAL_CRYPTO for crypto currencies (BTC, USDC), INTERNAL_FIAT otherwise. */
function holdingTypeFor(code: string): AccountType {
  return currencyInfo(code).kind === 'CRYPTO' ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT';
}

function accountRow(platformId: string, customerId: string | null, type: AccountType, code: string, now: number): InternalAccountRow {
  return {
    id: newId('InternalAccount', now),
    platformId,
    customerId,
    type,
    status: 'ACTIVE',
    currency: code,
    balance: 0,
    privateEnabled: false,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The accounts a new customer gets: one holding account per platform currency and, when the platform has
 * embedded wallets configured, one EMBEDDED_WALLET (USD when supported, else the first currency). The wallet's
 * Durable Object is initialised lazily by the wallet code, so nothing here touches it.
 */
export function customerAccountRows(platform: PlatformRow, customerId: string, now: number): InternalAccountRow[] {
  const codes = platform.supportedCurrencies.map((c) => c.currencyCode);
  const rows = codes.map((code) => accountRow(platform.id, customerId, holdingTypeFor(code), code, now));
  if (platform.embeddedWalletConfig && codes.length > 0) {
    rows.push(accountRow(platform.id, customerId, 'EMBEDDED_WALLET', codes.includes('USD') ? 'USD' : codes[0]!, now));
  }
  return rows;
}

/** The public InternalAccount shape (reference schema); payments code renders accounts with this too. */
export function internalAccountView(row: InternalAccountRow, mode: ServiceMode): InternalAccountView {
  const view: InternalAccountView = {
    id: row.id,
    ...(row.customerId ? { customerId: row.customerId } : {}),
    type: row.type,
    status: row.status,
    balance: { amount: row.balance, currency: currency(row.currency) },
    fundingPaymentInstructions: fundingInstructions(row, mode),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
  if (row.type === 'EMBEDDED_WALLET') view.privateEnabled = row.privateEnabled;
  return view;
}

export const internalAccountNotFound = () => notFound('INTERNAL_ACCOUNT_NOT_FOUND', 'Internal account not found');

/**
 * A condition checked on the few accounts of one holder (a customer, the platform), never an index search:
 * unary `+` keeps SQLite on the holder's index rather than walking every account of the platform in a currency.
 */
const among = (column: SQLiteColumn, value: string) => sql`+${column} = ${value}`;

/**
 * GET /customers/internal-accounts: the customers' accounts by id, with the filters (rows; `internalAccountView`
 * shows them). The total: unfiltered from the platform's maintained count; of one customer by counting its
 * accounts (at most one per currency and type); none under a currency or type filter alone.
 */
export const customerInternalAccountList = keysetList(
  (platformId: SQL, q: InternalAccountListQuery) => {
    const where = [eq(internalAccounts.platformId, platformId), isNotNull(internalAccounts.customerId)];
    if (q.customerId) where.push(eq(internalAccounts.customerId, q.customerId));
    const is = q.customerId ? among : eq;
    if (q.currency) where.push(is(internalAccounts.currency, q.currency));
    if (q.type) where.push(is(internalAccounts.type, q.type));
    return {
      table: internalAccounts,
      idColumn: internalAccounts.id,
      where: and(...where),
      limit: q.limit,
      cursor: q.cursor,
      withTotal: q.customerId !== undefined,
      counted: where.length === 2 ? { platformId, list: 'customer_internal_accounts' } : undefined,
    };
  },
  (row: InternalAccountRow) => row,
);

/** `customerInternalAccountList` of a platform known by id, shown in `mode`. */
export async function listCustomerInternalAccounts(db: Db, platformId: string, q: InternalAccountListQuery, mode: ServiceMode) {
  const loaded = await loadTogether(db, customerInternalAccountList.loads(db, sql`${platformId}`, q));
  return mapPage(customerInternalAccountList.from(q, loaded), (r) => internalAccountView(r, mode));
}

/**
 * Statements creating the platform's own holding accounts that are missing (one per supported currency). One statement
 * checks and inserts, and D1 runs statements one at a time, so concurrent calls cannot create duplicates.
 */
function ensureStatements(db: Db, platform: PlatformRow, now: number): Statement[] {
  const codes = platform.supportedCurrencies.map((c) => c.currencyCode);
  if (codes.length === 0) return [];
  const rows = codes.map((code) => accountRow(platform.id, null, holdingTypeFor(code), code, now));
  const missing = sql`NOT EXISTS (SELECT 1 FROM ${internalAccounts} AS own WHERE own.platform_id = ${platform.id} AND own.customer_id IS NULL
    AND own.type = json_extract(value, '$.type') AND own.currency = json_extract(value, '$.currency'))`;
  return insertJsonRows(db, internalAccounts, rows, missing);
}

/** GET /platform/internal-accounts: the platform's own accounts, the missing ones created first, in one batch. */
export async function listPlatformInternalAccounts(
  db: Db,
  platform: PlatformRow,
  q: { currency?: string; type?: AccountType },
  now: number,
  mode: ServiceMode,
) {
  const where = [eq(internalAccounts.platformId, platform.id), isNull(internalAccounts.customerId)];
  if (q.currency) where.push(among(internalAccounts.currency, q.currency));
  if (q.type) where.push(among(internalAccounts.type, q.type));
  const list = db
    .select()
    .from(internalAccounts)
    .where(and(...where))
    .orderBy(internalAccounts.id);
  const statements: Statement[] = [...ensureStatements(db, platform, now), list];
  const results = await db.batch(statements as [Statement, ...Statement[]]);
  return { data: (results.at(-1) as InternalAccountRow[]).map((r) => internalAccountView(r, mode)) };
}

/** The pseudo account sandbox deposits are debited from; the ledger of a platform still sums to zero. */
const SANDBOX_FUNDING_ACCOUNT = 'Sandbox:funding';

/** A deposit's named guard: the account is still ACTIVE (a customer deletion may have closed it since it was read). */
const STILL_ACTIVE = 'FUNDED_ACCOUNT_ACTIVE';

/**
 * Sandbox deposit, as a Change: one ledger movement from the funding pseudo account, posted atomically with the
 * balance change (concurrent deposits each add exactly their amount) and the balance event. It answers the
 * account as this deposit left the balance it read; 409 when the account is not (or no longer) ACTIVE.
 */
export function fundingChange(
  db: Db,
  mode: ServiceMode,
  account: InternalAccountRow | undefined,
  amount: number,
  now: number,
): Change<InternalAccountView> {
  if (!account) throw internalAccountNotFound();
  const notActive = () => conflict(`Internal account is ${account.status === 'ACTIVE' ? 'no longer active' : account.status}`);
  if (account.status !== 'ACTIVE') throw notActive();
  const active = exists(
    db
      .select({ one: sql`1` })
      .from(internalAccounts)
      .where(and(eq(internalAccounts.id, account.id), eq(internalAccounts.status, 'ACTIVE'))),
  );
  const movement = movementStatements(db, {
    platformId: account.platformId,
    from: SANDBOX_FUNDING_ACCOUNT,
    to: account.id,
    amount,
    currency: account.currency,
    reference: newId('SandboxFunding', now),
    kind: 'SANDBOX_FUNDING',
    now,
  });
  const event = balanceEvent(db, account, mode, now);
  return {
    statements: [namedGuard(db, STILL_ACTIVE, active), ...movement, ...event.statements],
    messages: eventMessages([event.eventId]),
    status: 200,
    body: internalAccountView({ ...account, balance: account.balance + amount, updatedAt: now }, mode),
    refusals: { [STILL_ACTIVE]: notActive() },
  };
}

/** PATCH /internal-accounts/{id} after the wallet's signed retry authorised it: the account as changed. */
export async function setInternalAccountPrivacy(
  db: Db,
  accountId: string,
  privateEnabled: boolean,
  now: number,
): Promise<InternalAccountRow> {
  const [row] = await db
    .update(internalAccounts)
    .set({ privateEnabled, updatedAt: now })
    .where(eq(internalAccounts.id, accountId))
    .returning();
  return row!;
}

/** An internal account of the platform as a load (`platformId` SQL: see `RouteSpec.load`). */
export function internalAccountLoad(db: Db, platformId: SQL, accountId: string) {
  return db
    .select()
    .from(internalAccounts)
    .where(and(eq(internalAccounts.id, accountId), eq(internalAccounts.platformId, platformId)))
    .limit(1);
}

/**
 * INTERNAL_ACCOUNT.STATUS_UPDATED for an account the same batch moves to `status`, written only when `where`
 * holds at its point of the batch (put it before the change, with the change's own condition); the balance
 * is read there too.
 */
export function statusEvent(
  db: Db,
  account: InternalAccountRow,
  status: InternalAccountRow['status'],
  mode: ServiceMode,
  now: number,
  where: SQL,
) {
  const view = internalAccountView({ ...account, status, updatedAt: now }, mode);
  const balance = db.select({ balance: internalAccounts.balance }).from(internalAccounts).where(eq(internalAccounts.id, account.id));
  return sqlEventStatements(db, {
    platformId: account.platformId,
    type: 'INTERNAL_ACCOUNT.STATUS_UPDATED',
    data: sql`json_set(json(${JSON.stringify(view)}), '$.balance.amount', (${balance}))`,
    where,
    now,
  });
}

/**
 * INTERNAL_ACCOUNT.BALANCE_UPDATED for an account whose balance the same batch changes: the balance in the
 * payload is read inside the batch, after the change, so concurrent movements each report their own result.
 */
export function balanceEvent(db: Db, account: InternalAccountRow, mode: ServiceMode, now: number) {
  const view = internalAccountView({ ...account, updatedAt: now }, mode);
  const balance = db.select({ balance: internalAccounts.balance }).from(internalAccounts).where(eq(internalAccounts.id, account.id));
  return sqlEventStatements(db, {
    platformId: account.platformId,
    type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
    data: sql`json_set(json(${JSON.stringify(view)}), '$.balance.amount', (${balance}), '$.updatedAt', ${iso(now)})`,
    now,
  });
}
