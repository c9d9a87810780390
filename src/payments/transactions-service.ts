// Transactions: load, read, history and list.
import { and, eq, gte, lte, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { loadTogether, type Db, type Loaded } from '../db/client';
import { idIs, idIsOrNull } from '../db/id-key';
import { transactionAccounts, transactions, type TransactionRow } from '../db/schema';
import { legacyHistoryRows, statusSteps } from './history';
import { notFound } from '../http/errors';
import { keysetLoads, mapPage, pageFrom, type KeysetLoads, type KeysetQuery, type Page } from '../http/pagination';
import type { TransactionListQuery, TransactionView } from './schema';
import { statusChangeView, transactionView } from './views';

export const transactionNotFound = () => notFound('TRANSACTION_NOT_FOUND', 'Transaction not found');

/** A transaction of this platform; another platform's id is 404 exactly like an unknown one. */
export async function loadTransaction(db: Db, platformId: string, id: string): Promise<TransactionRow> {
  const row = await db.query.transactions.findFirst({ where: and(eq(transactions.id, id), eq(transactions.platformId, platformId)) });
  if (!row) throw transactionNotFound();
  return row;
}

/** GET /transactions/{id} as a load (`platformId` SQL: see `RouteSpec.load`); `transactionFrom` reads it. */
export function transactionLoads(db: Db, platformId: SQL, id: string) {
  return {
    transaction: db
      .select()
      .from(transactions)
      .where(and(eq(transactions.id, id), eq(transactions.platformId, platformId)))
      .limit(1),
  };
}

export function transactionFrom(loaded: Loaded<ReturnType<typeof transactionLoads>>) {
  const row = loaded.transaction[0];
  if (!row) throw transactionNotFound();
  return transactionView(row);
}

/**
 * GET /transactions/{id}/history as loads (`platformId` SQL: see `RouteSpec.load`): the transaction's history, so
 * an unknown or another platform's one is 404, and the rows an earlier release kept it in (payments/history.ts).
 */
export function transactionHistoryLoads(db: Db, platformId: SQL, id: string) {
  return {
    transaction: db
      .select({ history: transactions.history })
      .from(transactions)
      .where(and(eq(transactions.id, id), eq(transactions.platformId, platformId)))
      .limit(1),
    legacy: legacyHistoryRows(db, platformId, id),
  };
}

export function transactionHistoryFrom(loaded: Loaded<ReturnType<typeof transactionHistoryLoads>>) {
  const found = loaded.transaction[0];
  if (!found) throw transactionNotFound();
  return { data: statusSteps(found.history, loaded.legacy).map(statusChangeView) };
}

// An end's account identifier is what its `source`/`destination` names: an account id or a UMA address
// (the reference's ACCOUNT and UMA_ADDRESS kinds). UMA addresses compare without case, lower-cased by SQLite on
// both sides as the customers' unique index keys them: the lower-cased columns are generated, with an index
// each (migrations: transactions_counts).
const senderUma = sql`${transactions}.sender_uma_lc`;
const receiverUma = sql`${transactions}.receiver_uma_lc`;
// An account id is found through its column's keyed index (`idIs`).
type Match = [column: SQL | SQLiteColumn, value: SQL, isId?: boolean];
const senderMatches = (identifier: string): Match[] => [
  [transactionAccounts.source, sql`${identifier}`, true],
  [senderUma, sql`lower(${identifier})`],
];
const receiverMatches = (identifier: string): Match[] => [
  [transactionAccounts.destination, sql`${identifier}`, true],
  [receiverUma, sql`lower(${identifier})`],
];
const matches = ([column, value, isId]: Match) => (isId ? idIs(column, value) : sql`${column} = ${value}`);
const anyOf = (side: Match[]) => or(...side.map(matches));
/**
 * An OR across columns as disjoint branches, each served by its column's index (the keyset list reads them
 * as a merged UNION ALL): a row is in the first branch it matches.
 */
const branchesOf = (side: Match[]) =>
  side.map((match, i) => and(matches(match), ...side.slice(0, i).map(([earlier, v]) => sql`${earlier} IS NOT ${v}`))!);

/** Filters with a maintained count of the rows they select (`list_counts`), by the one filter given. */
function countedList(q: TransactionListQuery): string | undefined {
  const { sortOrder: _order, limit: _limit, cursor: _cursor, ...filters } = q;
  const given = Object.entries(filters).filter(([, value]) => value !== undefined);
  if (given.length === 0) return 'transactions';
  if (given.length > 1) return undefined;
  const [name, value] = given[0]!;
  if (name === 'status' || name === 'type') return `transactions:${name}=${value}`;
  if (name === 'customerId') return `transactions:customer=${value}`;
  return undefined;
}

/**
 * GET /transactions: by creation (`createdAt`, then id) in `sortOrder`, with the filters; `customerId` naming
 * the platform means its own. Each filter has an index (platform, filter, createdAt, id), so a page reads about
 * its rows; the total comes from a maintained count when one exists for the filters (`countedList`), else it
 * is left out (never a count over the platform's transactions).
 */
export function transactionListLoads(db: Db, platformId: SQL, q: TransactionListQuery) {
  return keysetLoads<TransactionRow>(db, transactionListQuery(platformId, q));
}

/** The list's sort key (with the id): its cursor carries it. */
const createdAt = (row: TransactionRow) => row.createdAt;

function transactionListQuery(platformId: SQL, q: TransactionListQuery): KeysetQuery<TransactionRow> {
  const where: (SQL | undefined)[] = [idIs(transactions.platformId, platformId)];
  // One equality (`IS`, so NULL matches the platform's own), which the customer index serves.
  if (q.customerId)
    where.push(idIsOrNull(transactions.customerId, sql`(CASE WHEN ${q.customerId} = ${platformId} THEN NULL ELSE ${q.customerId} END)`));
  if (q.platformCustomerId) where.push(eq(transactions.platformCustomerId, q.platformCustomerId));
  const sides: Match[][] = [];
  if (q.accountIdentifier) sides.push([...senderMatches(q.accountIdentifier), ...receiverMatches(q.accountIdentifier)]);
  if (q.senderAccountIdentifier) sides.push(senderMatches(q.senderAccountIdentifier));
  if (q.receiverAccountIdentifier) sides.push(receiverMatches(q.receiverAccountIdentifier));
  // The first account filter drives the read by branches; any other only filters the rows they find.
  const [driving, ...others] = sides;
  for (const side of others) where.push(anyOf(side));
  if (q.status) where.push(eq(transactions.status, q.status));
  if (q.type) where.push(eq(transactions.type, q.type));
  if (q.reference) where.push(eq(transactions.reference, q.reference));
  if (q.startDate !== undefined) where.push(gte(transactions.createdAt, q.startDate));
  if (q.endDate !== undefined) where.push(lte(transactions.createdAt, q.endDate));
  const list = countedList(q);
  return {
    table: transactions,
    idColumn: transactions.id,
    sortColumn: transactions.createdAt,
    sortKey: createdAt,
    order: q.sortOrder,
    where: and(...where),
    branches: driving && branchesOf(driving),
    limit: q.limit,
    cursor: q.cursor,
    counted: list === undefined ? undefined : { platformId, list },
  };
}

/** The page `transactionListLoads` read. */
export function transactionListFrom(q: TransactionListQuery, loaded: Loaded<KeysetLoads>): Page<TransactionView> {
  return mapPage(pageFrom<TransactionRow>({ limit: q.limit, sortKey: createdAt }, loaded), transactionView);
}

/** GET /transactions of a platform known by id (an agent's customer's transactions). */
export async function listTransactions(db: Db, platformId: string, q: TransactionListQuery) {
  return transactionListFrom(q, await loadTogether(db, transactionListLoads(db, sql`${platformId}`, q)));
}
