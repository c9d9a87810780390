// DELETE /customers/{customerId}: a soft delete that never strands money (refused while any is held or moving).
import { and, eq, gt, inArray, isNull, ne, notExists, sql, type SQL } from 'drizzle-orm';
import { union } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import { customers, dueTransitions, internalAccounts, transactionAccounts, transactions, type CustomerRow } from '../db/schema';
import { OPEN_TRANSACTION_STATUSES } from '../db/enums';
import { ApiError, FINAL_CONFLICT_HEADERS, retryableConflict } from '../http/errors';
import type { Deps } from '../http/deps';
import { statusEvent } from '../accounts/internal-service';
import { dispatchEvents } from '../webhooks/outbox';
import type { CustomerView } from './schema';
import { customerDeleted, customerView, loadActiveCustomer, loadCustomer, ownersOf } from './service';

/** How many funded accounts and pending transactions a refused deletion names at most. */
const NAMED_BLOCKERS = 20;

/** Open statuses as a literal list: the partial indexes of open transactions have it as their condition. */
const OPEN = sql.raw(`(${OPEN_TRANSACTION_STATUSES.map((s) => `'${s}'`).join(', ')})`);

/**
 * What keeps a customer from being deleted, as queries (each empty when nothing does): its accounts holding
 * money, and its payments still under way. A payment is under way while its status is open, or while a step of
 * its plan is still due from its status (a completed payout the bank may still return); it is the customer's
 * own or pays into one of its accounts (another customer's quote). Each part reads what is in flight (the
 * partial indexes of open transactions, the platform's pending transitions), never the customer's history.
 */
function deletionBlockers(db: Db, platformId: string, customerId: string) {
  const accountsOf = db.select({ id: internalAccounts.id }).from(internalAccounts).where(eq(internalAccounts.customerId, customerId));
  const fields = { id: transactions.id, status: transactions.status };
  const own = and(eq(transactions.platformId, platformId), eq(transactions.customerId, customerId));
  const into = and(eq(transactions.platformId, platformId), inArray(transactionAccounts.destination, accountsOf));
  const open = sql`${transactions.status} IN ${OPEN}`;
  const stepDue = (whose: SQL) =>
    db
      .select(fields)
      .from(dueTransitions)
      // From the pending transitions to their transactions: the unary + keeps SQLite from walking the
      // customer's transactions to probe each one's transitions.
      .innerJoin(transactions, sql`${transactions.id} = +${dueTransitions.subjectId}`)
      .where(
        and(
          eq(dueTransitions.platformId, platformId),
          isNull(dueTransitions.appliedAt),
          eq(dueTransitions.fromStatus, transactions.status),
          whose,
        ),
      );
  return {
    funded: db
      .select({ id: internalAccounts.id, balance: internalAccounts.balance, currency: internalAccounts.currency })
      .from(internalAccounts)
      .where(and(eq(internalAccounts.customerId, customerId), gt(internalAccounts.balance, 0)))
      .orderBy(internalAccounts.id)
      .limit(NAMED_BLOCKERS),
    pending: union(
      db.select(fields).from(transactions).where(and(own, open)),
      db.select(fields).from(transactions).where(and(into, open)),
      stepDue(own!),
      stepDue(into!),
    )
      // Unordered (the refusal sorts what it names): an ORDER BY would have SQLite read each part in id order
      // through the indexes of all transactions rather than the open ones.
      .limit(NAMED_BLOCKERS),
  };
}

/**
 * Soft delete (the record stays readable with isDeleted: true; its platformCustomerId and UMA address become
 * free). No money is ever stranded: refused (409 naming them) while any of its accounts holds money or any of
 * its payments is under way, since a refund or a credit could land in a closed account. Its accounts are closed
 * in the same batch, whose every write is conditioned on the same check, each announced with
 * INTERNAL_ACCOUNT.STATUS_UPDATED; a payment starting concurrently is refused by its own batch (transaction-change).
 */
export async function deleteCustomer(deps: Deps, platformId: string, customerId: string, now: number): Promise<CustomerView> {
  const { db } = deps;
  const row = await loadActiveCustomer(db, platformId, customerId);
  const open = await db
    .select()
    .from(internalAccounts)
    .where(and(eq(internalAccounts.customerId, row.id), ne(internalAccounts.status, 'CLOSED')));
  const blockers = deletionBlockers(db, platformId, row.id);
  const deletable = and(notExists(blockers.funded), notExists(blockers.pending))!;
  // Evaluated before the deletion with its own condition, so an event is written exactly when its account closes.
  const closing = open.map((a) =>
    statusEvent(
      db,
      a,
      'CLOSED',
      deps.mode,
      now,
      sql`${deletable} AND EXISTS (SELECT 1 FROM ${customers} WHERE ${customers.id} = ${row.id} AND ${customers.isDeleted} = 0)`,
    ),
  );
  const events = closing.flatMap((e) => e.statements);
  const results = await db.batch([
    ...events,
    db
      .update(customers)
      .set({ isDeleted: true, updatedAt: Math.max(now, row.updatedAt) })
      .where(and(eq(customers.id, row.id), eq(customers.isDeleted, false), deletable))
      .returning(),
    db
      .update(internalAccounts)
      .set({ status: 'CLOSED', updatedAt: now })
      .where(
        and(
          eq(internalAccounts.customerId, row.id),
          sql`EXISTS (SELECT 1 FROM ${customers} WHERE ${customers.id} = ${row.id} AND ${customers.isDeleted} = 1)`,
        ),
      ),
    blockers.funded,
    blockers.pending,
  ] as unknown as Parameters<typeof db.batch>[0]);
  const deleted = results[events.length] as CustomerRow[];
  if (!deleted[0]) {
    const again = await loadCustomer(db, platformId, customerId);
    if (again.isDeleted) throw customerDeleted();
    throw deletionRefused(
      results[events.length + 2] as { id: string; balance: number; currency: string }[],
      results[events.length + 3] as { id: string; status: string }[],
    );
  }
  await dispatchEvents(
    deps.queue,
    closing.map((e) => e.eventId),
  );
  return customerView(deleted[0], (await ownersOf(db, deleted)).get(row.id) ?? []);
}

/**
 * The 409 of a refused deletion, naming what holds the customer. Money in an account stays until the platform
 * moves it out (no retry changes that: x-should-retry false); payments under way settle by themselves, so a
 * later retry may pass (no such header).
 */
function deletionRefused(funded: { id: string; balance: number; currency: string }[], pending: { id: string; status: string }[]) {
  const details = {
    fundedAccounts: funded.map((a) => ({ id: a.id, balance: { amount: a.balance, currency: a.currency } })),
    pendingTransactions: pending.map((t) => ({ id: t.id, status: t.status })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  };
  if (funded.length > 0) {
    return new ApiError(
      'CONFLICT',
      "The customer's internal accounts still hold funds; move them out before deleting",
      details,
      FINAL_CONFLICT_HEADERS,
    );
  }
  if (pending.length > 0) {
    return new ApiError(
      'CONFLICT',
      'The customer has payments under way; delete it once they have settled and its accounts are empty',
      details,
    );
  }
  return retryableConflict('The customer changed concurrently; retry the request');
}
