// The double-entry ledger: a movement's statements, for the Change that applies them once (http/change.ts).
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Statement } from '../db/client';
import { internalAccounts, ledgerEntries, ledgerMovements } from '../db/schema';
import { insertSelect, selectValues } from '../db/insert-select';
import { isInternalAccountId } from '../crypto/ids';

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
 * The statements of a movement: balance changes of the internal sides plus its ledger row.
 * Put them in one Change with the state change that causes them: the balance CHECK refuses an
 * overdraft (its shortfall) and the movement's key (platform, reference, kind) a second posting (its conflict),
 * each rolling back the whole batch.
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
  const row = {
    platformId: m.platformId,
    reference: m.reference,
    kind: m.kind,
    fromAccountId: m.from,
    toAccountId: m.to,
    amount: m.amount,
    currency: m.currency,
    createdAt: m.now,
  };
  // A movement an earlier release posted as two entries, not yet converted (ledger/backfill.ts), is posted
  // already: the row is then selected twice, and its own key refuses the second as any second posting.
  const postedBefore = sql`EXISTS (SELECT 1 FROM ${ledgerEntries} WHERE ${ledgerEntries.reference} = ${m.reference} AND ${ledgerEntries.kind} = ${m.kind})`;
  stmts.push(insertSelect(db, ledgerMovements, row, sql`UNION ALL SELECT ${selectValues(ledgerMovements, row)} WHERE ${postedBefore}`));
  return stmts;
}
