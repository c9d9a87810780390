// The double-entry ledger: a movement's statements, and the batch that applies them once.
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Statement } from '../db/client';
import { internalAccounts, ledgerEntries } from '../db/schema';
import { isInternalAccountId, newId } from '../crypto/ids';
import { errorText, isBalanceCheckFailure, isUniqueViolation } from '../db/errors';

/** One movement of money from one account to another, in one currency. */
export interface Movement {
  platformId: string;
  /** Debited account: an internal account id, or the id of something outside the service. */
  from: string;
  /** Credited account. */
  to: string;
  amount: number;
  currency: string;
  /** What causes it (transaction id, funding id); with `kind` it identifies the movement so it posts once. */
  reference: string;
  kind: string;
  now: number;
}

/**
 * The statements of a movement: balance changes of the internal sides plus the two ledger entries.
 * Put them in one `db.batch` with the state change that causes them: the balance CHECK refuses an
 * overdraft and the unique (reference, kind, account) refuses a second posting, each rolling back the
 * whole batch.
 */
export function movementStatements(db: Db, m: Movement): Statement[] {
  if (!Number.isSafeInteger(m.amount) || m.amount <= 0) throw new Error(`invalid movement amount ${m.amount}`);
  const stmts: Statement[] = [];
  const change = (id: string, delta: number) =>
    db
      .update(internalAccounts)
      .set({ balance: sql`${internalAccounts.balance} + ${delta}`, updatedAt: m.now })
      .where(and(eq(internalAccounts.id, id), eq(internalAccounts.platformId, m.platformId), eq(internalAccounts.currency, m.currency)));
  if (isInternalAccountId(m.from)) stmts.push(change(m.from, -m.amount));
  if (isInternalAccountId(m.to)) stmts.push(change(m.to, m.amount));
  const entry = (accountId: string, amount: number) => ({
    id: newId('LedgerEntry', m.now),
    platformId: m.platformId,
    accountId,
    amount,
    currency: m.currency,
    reference: m.reference,
    kind: m.kind,
    createdAt: m.now,
  });
  stmts.push(db.insert(ledgerEntries).values([entry(m.from, -m.amount), entry(m.to, m.amount)]));
  return stmts;
}

type MoneyBatchResult = 'applied' | 'insufficient_funds' | 'already_applied';

/**
 * Runs a batch that moves money, giving the statements' results when it applied (a read at its end sees its
 * writes). Expected refusals come back as values: an overdraft (`insufficient_funds`) or a movement already
 * posted (`already_applied`); in both nothing changed. (A payment's change commits through `commitChange`.)
 */
export async function moneyBatch(db: Db, stmts: Statement[]): Promise<{ result: MoneyBatchResult; results: unknown[] }> {
  try {
    return { result: 'applied', results: await db.batch(stmts as [Statement, ...Statement[]]) };
  } catch (error) {
    const text = errorText(error);
    if (isBalanceCheckFailure(text)) return { result: 'insufficient_funds', results: [] };
    if (isUniqueViolation(text, 'ledger_entries')) return { result: 'already_applied', results: [] };
    throw error;
  }
}
