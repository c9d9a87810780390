import { and, asc, eq, gte, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import { loadTogether, type Db, type Loaded } from '../db/client';
import { transactionHistory, transactions, type TransactionRow } from '../db/schema';
import { notFound } from '../http/errors';
import { keysetList } from '../http/pagination';
import type { TransactionListQuery } from './schema';
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
 * GET /transactions/{id}/history as loads (`platformId` SQL: see `RouteSpec.load`): the transaction's id, so
 * an unknown or another platform's one is 404, and its history rows (one per status entered) in order.
 */
export function transactionHistoryLoads(db: Db, platformId: SQL, id: string) {
  return {
    transaction: db
      .select({ id: transactions.id })
      .from(transactions)
      .where(and(eq(transactions.id, id), eq(transactions.platformId, platformId)))
      .limit(1),
    history: db
      .select()
      .from(transactionHistory)
      .where(and(eq(transactionHistory.transactionId, id), eq(transactionHistory.platformId, platformId)))
      .orderBy(asc(transactionHistory.version)),
  };
}

export function transactionHistoryFrom(loaded: Loaded<ReturnType<typeof transactionHistoryLoads>>) {
  if (!loaded.transaction[0]) throw transactionNotFound();
  return { data: loaded.history.map(statusChangeView) };
}

// An end's account identifier is what its `source`/`destination` names: an account id or a UMA address
// (the reference's ACCOUNT and UMA_ADDRESS kinds); UMA addresses compare without case, lower-cased by SQLite on
// both sides as the customers' unique index keys them.
const isSender = (identifier: string) =>
  or(eq(transactions.sourceAccountId, identifier), sql`lower(${transactions.senderUmaAddress}) = lower(${identifier})`);
const isReceiver = (identifier: string) =>
  or(eq(transactions.destinationAccountId, identifier), sql`lower(${transactions.receiverUmaAddress}) = lower(${identifier})`);

/** GET /transactions: newest first by default, keyset on the (time-ordered) id. */
/** GET /transactions: by id in `sortOrder`, with the filters; `customerId` naming the platform means its own. */
export const transactionList = keysetList((platformId: SQL, q: TransactionListQuery) => {
  const where: (SQL | undefined)[] = [eq(transactions.platformId, platformId)];
  if (q.customerId) {
    where.push(or(and(eq(sql`${q.customerId}`, platformId), isNull(transactions.customerId)), eq(transactions.customerId, q.customerId)));
  }
  if (q.platformCustomerId) where.push(eq(transactions.platformCustomerId, q.platformCustomerId));
  if (q.accountIdentifier) where.push(or(isSender(q.accountIdentifier), isReceiver(q.accountIdentifier)));
  if (q.senderAccountIdentifier) where.push(isSender(q.senderAccountIdentifier));
  if (q.receiverAccountIdentifier) where.push(isReceiver(q.receiverAccountIdentifier));
  if (q.status) where.push(eq(transactions.status, q.status));
  if (q.type) where.push(eq(transactions.type, q.type));
  if (q.reference) where.push(eq(transactions.reference, q.reference));
  if (q.startDate !== undefined) where.push(gte(transactions.createdAt, q.startDate));
  if (q.endDate !== undefined) where.push(lte(transactions.createdAt, q.endDate));
  return {
    table: transactions,
    idColumn: transactions.id,
    order: q.sortOrder,
    where: and(...where),
    limit: q.limit,
    cursor: q.cursor,
    withTotal: true,
  };
}, transactionView);

/** `transactionList` of a platform known by id (an agent's customer's transactions). */
export async function listTransactions(db: Db, platformId: string, q: TransactionListQuery) {
  return transactionList.from(q, await loadTogether(db, transactionList.loads(db, sql`${platformId}`, q)));
}
