// POST /webhooks/deliveries/replay: past deliveries sent again, oldest first, through the queue.
import { and, asc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { webhookDeliveries } from '../db/schema';
import { dispatchEvents } from './outbox';
import type { WebhookDeps } from './delivery';
import { MAX_REPLAY, type WebhookReplayRequest } from './schema';

/**
 * The deliveries a replay picks. Oldest first is by `createdAt` (ids are UUIDv7 but kept increasing per
 * isolate, so a platform whose sandbox clock ran ahead pushes the next ids of others past their time):
 * the (platform[, type | status], createdAt, id) indexes, which the list pages through too, read them in that
 * order, the range bounding the read.
 */
function replayWhere(platformId: string, f: WebhookReplayRequest): SQL {
  return and(
    eq(webhookDeliveries.platformId, platformId),
    f.type ? eq(webhookDeliveries.eventType, f.type) : undefined,
    // With both, the event type's index bounds the read and the status is checked on its rows (as the list does).
    f.status ? (f.type ? sql`+${webhookDeliveries.status} = ${f.status}` : eq(webhookDeliveries.status, f.status)) : undefined,
    f.createdAfter ? gte(webhookDeliveries.createdAt, Date.parse(f.createdAfter)) : undefined,
    f.createdBefore ? lt(webhookDeliveries.createdAt, Date.parse(f.createdBefore)) : undefined,
  )!;
}

/**
 * Sends the platform's matching deliveries again, at most MAX_REPLAY, oldest first: one update makes them
 * due now (PENDING again; a settled one gets one more attempt, its payload bytes unchanged), then one queue
 * message per event, which the consumer claims and sends as any other attempt. `now` is platform time,
 * `realNow` wall-clock ms (the sweep's `sweepAt`, so a lost message is still sent).
 */
export async function replayDeliveries(deps: WebhookDeps, platformId: string, f: WebhookReplayRequest, now: number, realNow: number) {
  const picked = deps.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(replayWhere(platformId, f))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
    .limit(MAX_REPLAY);
  const rows = await deps.db
    .update(webhookDeliveries)
    .set({ status: 'PENDING', nextAttemptAt: now, sweepAt: realNow, updatedAt: now })
    .where(inArray(webhookDeliveries.id, picked))
    .returning({ id: webhookDeliveries.id, eventId: webhookDeliveries.eventId, createdAt: webhookDeliveries.createdAt });
  rows.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  await dispatchEvents(deps.queue, [...new Set(rows.map((r) => r.eventId))], deps.log);
  return { count: rows.length, deliveryIds: rows.map((r) => r.id) };
}
