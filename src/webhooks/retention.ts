// Retention: settled deliveries and their events purged after WEBHOOK_RETENTION_DAYS.
import { and, eq, inArray, lte, not, sql } from 'drizzle-orm';
import type { Db, Statement } from '../db/client';
import { webhookDeliveries, webhookEvents } from '../db/schema';

/** Settled deliveries purged per status per sweep (one batch; the sweep runs every minute). */
const PURGE_BATCH = 1_000;
const SETTLED = ['DELIVERED', 'FAILED', 'SKIPPED'] as const;

/**
 * Cron: deletes settled deliveries (delivered, failed for good, skipped) that settled more than `retentionMs`
 * ago, wall clock, and their events, at most PURGE_BATCH of each status: one batch, read through the sweep
 * index (status, sweepAt), so it reads what it deletes. Each event goes with its last delivery (usually its
 * only one); the list counters follow by their triggers. PENDING deliveries are never purged.
 */
export async function purgeSettledDeliveries(db: Db, realNow: number, retentionMs: number, batch = PURGE_BATCH): Promise<number> {
  const statements: Statement[] = [];
  for (const status of SETTLED) {
    // The same rows for both statements: the same query, in the same transaction, before either deletes them.
    const expired = (column: typeof webhookDeliveries.id | typeof webhookDeliveries.eventId) =>
      db
        .select({ v: column })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.status, status), lte(webhookDeliveries.sweepAt, realNow - retentionMs)))
        .orderBy(webhookDeliveries.sweepAt)
        .limit(batch);
    // An event goes with its last delivery: a sandbox DUPLICATE or OUT_OF_ORDER delivery may outlive another of the same event.
    const keptDelivery = sql`EXISTS (SELECT 1 FROM ${webhookDeliveries} WHERE ${webhookDeliveries.eventId} = ${webhookEvents.id} AND ${webhookDeliveries.id} NOT IN ${expired(webhookDeliveries.id)})`;
    statements.push(
      db.delete(webhookEvents).where(and(inArray(webhookEvents.id, expired(webhookDeliveries.eventId)), not(keptDelivery))),
      db
        .delete(webhookDeliveries)
        .where(inArray(webhookDeliveries.id, expired(webhookDeliveries.id)))
        .returning({ id: webhookDeliveries.id }),
    );
  }
  const results = (await db.batch(statements as [Statement, ...Statement[]])) as unknown[][];
  return results.filter((_, i) => i % 2 === 1).reduce((n, rows) => n + rows.length, 0);
}
