// POST /webhooks/deliveries/{id}/resend: a delivery sent again now.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import { webhookDeliveries, webhookEvents } from '../db/schema';
import { ApiError } from '../http/errors';
import { attemptColumns, envelopeBody, sendAndDecide, type WebhookDeps } from './delivery';
import type { WebhookDelivery } from './schema';
import { deliveryLoads, deliveryNotFound, deliveryView } from './service';
import { eventFields, legacyEvent, platformOffsetSql } from './outbox';

/** POST /webhooks/deliveries/{id}/resend as a load (`platformId` SQL: see `RouteSpec.load`): the delivery and its event. */
export function resendLoads(db: Db, platformId: SQL, deliveryId: string) {
  const mine = and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.platformId, platformId));
  return {
    ...deliveryLoads(db, platformId, deliveryId),
    event: db.select(eventFields).from(webhookDeliveries).leftJoin(webhookEvents, legacyEvent).where(mine).limit(1),
  };
}

/**
 * Sends a delivery's event again now, whatever its status: the same event id and payload bytes, freshly
 * signed, to the platform's current `webhookEndpoint` under the usual endpoint rules. The attempt is
 * recorded by one update (`attempts + 1` in SQL, so parallel resends each count). It is an attempt like
 * any other: an answer that carries a decision (an incoming payment's approval) applies it, once; an
 * acknowledged or deciding answer makes the delivery DELIVERED; any other leaves its status (and a
 * PENDING delivery's retries) as they were. A BAD_SIGNATURE delivery is sent again with a bad signature: it
 * stays the check that the receiver refuses it.
 */
export async function resendDelivery(
  deps: WebhookDeps,
  loaded: Loaded<ReturnType<typeof resendLoads>>,
  webhookEndpoint: string | null,
  now: number,
): Promise<WebhookDelivery> {
  const delivery = loaded.delivery[0];
  const event = loaded.event[0];
  if (!delivery || !event) throw deliveryNotFound();
  if (!webhookEndpoint) {
    throw new ApiError('WEBHOOK_ENDPOINT_NOT_SET', 'No webhookEndpoint is configured; set one with PATCH /config');
  }
  if (!deps.signingKey) throw new Error('WEBHOOK_SIGNING_KEY is not set');
  const body = delivery.payload ?? envelopeBody(event);
  const badSignature = delivery.mode === 'BAD_SIGNATURE';
  const { sent, delivered } = await sendAndDecide(deps, deps.signingKey, event, webhookEndpoint, body, now, badSignature);
  const attempt = { ...attemptColumns(webhookEndpoint, body, sent, now), attempts: sql<number>`${webhookDeliveries.attempts} + 1` };
  const [row] = await deps.db
    .update(webhookDeliveries)
    .set(
      delivered
        ? {
            ...attempt,
            status: 'DELIVERED',
            deliveredAt: sql<number>`coalesce(${webhookDeliveries.deliveredAt}, ${now})`,
            nextAttemptAt: now,
            // Settled now: retention counts from here (wall clock).
            sweepAt: sql<number>`${now} - ${platformOffsetSql(webhookDeliveries.platformId)}`,
          }
        : attempt,
    )
    .where(eq(webhookDeliveries.id, delivery.id))
    .returning();
  // Gone in between (a sandbox reset): as if it had never been there.
  if (!row) throw deliveryNotFound();
  return deliveryView(row);
}
