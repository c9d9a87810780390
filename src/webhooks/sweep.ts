// The cron sweep of webhook deliveries: attempts what is due (lost messages, expired leases) and queues the rest.
import { and, asc, eq, inArray, lte } from 'drizzle-orm';
import type { Db } from '../db/client';
import { webhookDeliveries } from '../db/schema';
import { dispatchEvents } from './outbox';
import { deliverEvents, LEASE_MS, type WebhookDeps } from './delivery';

/** Events the sweep claims per D1 round trip. */
const SWEEP_CHUNK = 20;
/** Due deliveries the cron sweep attempts itself per tick. */
export const SWEEP_INLINE = 60;
/** Due deliveries the cron sweep queues per tick beyond those (docs/engineering/performance.md: at least 1,000 a minute). */
export const SWEEP_QUEUED = 1_000;

/**
 * Where the sweep looks: PENDING deliveries whose wall-clock `sweepAt` has come (due by their platform's clock,
 * the offset applied when written and shifted when the clock advances), oldest first: an index range of what
 * is due, whatever the platforms' offsets.
 */
function dueForSweep(realNow: number, platformId?: string) {
  return and(
    eq(webhookDeliveries.status, 'PENDING'),
    lte(webhookDeliveries.sweepAt, realNow),
    platformId ? eq(webhookDeliveries.platformId, platformId) : undefined,
  );
}

/** Event ids of deliveries due by each platform's own clock, oldest first. */
export async function dueDeliveryEventIds(db: Db, realNow: number, opts: { platformId?: string; limit?: number } = {}): Promise<string[]> {
  const rows = await db
    .select({ eventId: webhookDeliveries.eventId })
    .from(webhookDeliveries)
    .where(dueForSweep(realNow, opts.platformId))
    .orderBy(asc(webhookDeliveries.sweepAt))
    .limit(opts.limit ?? SWEEP_INLINE);
  return rows.map((r) => r.eventId);
}

/**
 * Cron: attempts up to SWEEP_INLINE due deliveries itself, then queues up to SWEEP_QUEUED more (the consumer
 * claims and attempts them as usual), leasing them so the next tick does not queue them again. Reads only
 * rows that are due.
 */
export async function sweepDueWebhooks(deps: WebhookDeps, realNow: number): Promise<{ attempted: number; queued: number }> {
  const attempted = await deliverDueWebhooks(deps, realNow);
  const due = deps.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(dueForSweep(realNow))
    .orderBy(asc(webhookDeliveries.sweepAt))
    .limit(SWEEP_QUEUED);
  const leased = await deps.db
    .update(webhookDeliveries)
    .set({ sweepAt: realNow + LEASE_MS })
    .where(inArray(webhookDeliveries.id, due))
    .returning({ eventId: webhookDeliveries.eventId });
  await dispatchEvents(
    deps.queue,
    leased.map((r) => r.eventId),
    deps.log,
  );
  return { attempted, queued: leased.length };
}

/** Cron backstop: attempts every overdue delivery (lost messages, expired leases), a few at a time. */
async function deliverDueWebhooks(deps: WebhookDeps, realNow: number, opts: { platformId?: string; limit?: number } = {}): Promise<number> {
  const eventIds = await dueDeliveryEventIds(deps.db, realNow, opts);
  let attempted = 0;
  for (let i = 0; i < eventIds.length; i += SWEEP_CHUNK) {
    const chunk = eventIds.slice(i, i + SWEEP_CHUNK);
    try {
      attempted += (await deliverEvents(deps, chunk, realNow)).filter((o) => o.result !== 'not_due').length;
    } catch (error) {
      deps.log.error('webhook delivery failed', { eventIds: chunk, error: String(error) });
    }
  }
  return attempted;
}
