// A transaction's status history: a JSON column of its row (migration 0033); before that, rows of
// transaction_history, which a change carries over and the cron sweep converts in chunks.
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { convertInChunks } from '../db/backfill';
import { packStepsAfter, STEP_STATUSES } from '../db/packed-json';
import { transactionHistory as h, transactions, type StatusStep, type TransactionHistoryRow, type TransactionStatus } from '../db/schema';

/** The history an earlier release left in rows, as the column holds it (`[]` when there is none). */
const legacyHistory = sql`(SELECT json_group_array(json_array(o.from_status, o.to_status, o.at)) FROM (
  SELECT ${h.fromStatus} AS from_status, ${h.toStatus} AS to_status, ${h.at} AS at FROM ${h}
  WHERE ${h.transactionId} = ${transactions}."id" ORDER BY ${h.version}) o)`;

/**
 * The history column with `steps` appended, steps that follow on from `from`, the status the transaction was in:
 * to a flat history (`packSteps`) as more of it, each time after the first step's; to separate steps (or to the
 * rows of an earlier release not yet converted) as `[status index, at]` steps.
 */
export function appendedHistory(steps: StatusStep[], from: TransactionStatus): SQL {
  // D1 binds a number as REAL (2.0 in the JSON): the cast keeps them integers.
  const flat = steps.flatMap(([, to, at]) => [
    sql`'$[#]', ${sql.raw(String(STEP_STATUSES.indexOf(to)))}`,
    sql`'$[#]', CAST(${at} AS INTEGER) - json_extract(${transactions.history}, '$[1]')`,
  ]);
  const separate = packStepsAfter(steps, from).map((s) => sql`'$[#]', json(${JSON.stringify(s)})`);
  return sql`CASE WHEN json_type(${transactions.history}, '$[0]') = 'integer'
    THEN json_insert(${transactions.history}, ${sql.join(flat, sql`, `)})
    ELSE json_insert(coalesce(${transactions.history}, ${legacyHistory}), ${sql.join(separate, sql`, `)}) END`;
}

/** A transaction's history rows of an earlier release (read beside the column, which wins once it is set). */
export const legacyHistoryRows = (db: Db, platformId: SQL, id: string) =>
  db
    .select()
    .from(h)
    .where(and(eq(h.transactionId, id), eq(h.platformId, platformId)))
    .orderBy(asc(h.version));

/** The statuses entered, in order, from the column, or else from the rows of an earlier release. */
export function statusSteps(history: StatusStep[] | null, legacy: TransactionHistoryRow[]): StatusStep[] {
  return history ?? legacy.map((r) => [r.fromStatus, r.toStatus, r.at]);
}

/** History rows read per chunk of the conversion: a short batch (about 500 transactions' rows). */
export const LEGACY_HISTORY_CHUNK = 1000;

// The transactions of the oldest rows (rowid order, the table's own order: no index needed).
const chunkTransactions = sql`SELECT ${h.transactionId} FROM ${h} ORDER BY rowid LIMIT ${sql.raw(String(LEGACY_HISTORY_CHUNK))}`;

/**
 * Converts one chunk: the transactions of the oldest rows get their whole history in the column (unless a change
 * carried it over already) and lose their rows, in one batch. Returns the rows deleted (0: none left).
 */
export async function convertLegacyHistoryChunk(db: Db): Promise<number> {
  const [, deleted] = await db.batch([
    db
      .update(transactions)
      .set({ history: legacyHistory })
      .where(sql`${transactions.id} IN (${chunkTransactions}) AND ${transactions.history} IS NULL`),
    db.delete(h).where(sql`${h.transactionId} IN (${chunkTransactions})`),
  ]);
  return deleted.meta.changes;
}

/** The sweep's step: the old rows converted a few chunks at a time, until none is left. */
export const convertLegacyHistory = (db: Db) => convertInChunks(db, h, convertLegacyHistoryChunk);
