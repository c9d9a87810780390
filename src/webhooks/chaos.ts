// Sandbox webhook chaos: an event delivered twice, late, with a bad signature, or an earlier one after the latest.
import { and, desc, eq, like } from 'drizzle-orm';
import { webhookDeliveries, webhookEvents, type WebhookDeliveryRow } from '../db/schema';
import { newId } from '../crypto/ids';
import { invalidFields } from '../http/errors';
import type { Statement } from '../db/client';
import { sendMessages, type JobMessage } from '../http/change';
import type { WebhookDeps } from './delivery';
import { eventFields, legacyEvent, resourceIdOf, type WebhookDeliverJob, type WebhookEvent } from './outbox';
import type { WebhookDeliveryMode, WebhookType } from './schema';

/** What the chaos sends: a new event (every mode but OUT_OF_ORDER), or a resource's past events (OUT_OF_ORDER). */
export type ChaosSend =
  | { mode: 'NORMAL' | 'DUPLICATE' | 'BAD_SIGNATURE'; type: WebhookType; data: Record<string, unknown> }
  | { mode: 'DELAYED'; type: WebhookType; data: Record<string, unknown>; delaySeconds: number }
  | { mode: 'OUT_OF_ORDER'; type: WebhookType; resourceId: string };

/** How far behind the latest event an OUT_OF_ORDER send puts the earlier one, so it arrives second. */
export const OUT_OF_ORDER_GAP_SECONDS = 1;

/** Rows of the resource's deliveries looked at to find its two latest events (chaos adds rows of past events). */
const RESOURCE_ROWS = 20;

/** A delivery of `event` made by the chaos: PENDING, due `inSeconds` from now (platform time `now`, wall clock `realNow`). */
function chaosDelivery(
  event: Omit<WebhookEvent, 'platformId'>,
  platformId: string,
  resourceId: string | null,
  mode: WebhookDeliveryMode,
  at: { now: number; realNow: number; inSeconds: number },
) {
  const due = at.inSeconds * 1000;
  return {
    id: newId('WebhookDelivery', at.now),
    platformId,
    eventId: event.id,
    eventType: event.type,
    eventTimestamp: event.timestamp,
    eventData: event.data,
    status: 'PENDING' as const,
    attempts: 0,
    nextAttemptAt: at.now + due,
    sweepAt: at.realNow + due,
    createdAt: at.now,
    updatedAt: at.now,
    mode,
    resourceId,
  };
}

/**
 * Records what a chaos send delivers and queues it, through the same consumer as every event: the new event
 * with its delivery (two for DUPLICATE, one event id; one due `delaySeconds` later for DELAYED, which a sandbox
 * clock advance releases early, as it does retries), or for OUT_OF_ORDER the resource's latest event and then,
 * OUT_OF_ORDER_GAP_SECONDS later, the one before it. Answers the delivery rows, in the order they go out.
 */
export async function sendChaos(
  deps: WebhookDeps,
  platformId: string,
  send: ChaosSend,
  now: number,
  realNow: number,
): Promise<WebhookDeliveryRow[]> {
  const { db } = deps;
  const at = (inSeconds: number) => ({ now, realNow, inSeconds });
  const statements: Statement[] = [];
  const deliveries: ReturnType<typeof chaosDelivery>[] = [];
  const messages: JobMessage[] = [];
  const deliver = (eventId: string, delaySeconds: number) =>
    messages.push({ body: { type: 'webhook.deliver', eventId } satisfies WebhookDeliverJob, ...(delaySeconds ? { delaySeconds } : {}) });

  if (send.mode === 'OUT_OF_ORDER') {
    const [latest, earlier] = await pastEvents(deps, platformId, send.type, send.resourceId);
    if (!latest || !earlier) {
      const message = `OUT_OF_ORDER needs a resource with at least two past ${objectOf(send.type)} events`;
      throw invalidFields('request body', [{ field: 'resourceId', message }]);
    }
    deliveries.push(chaosDelivery(latest, platformId, send.resourceId, 'OUT_OF_ORDER', at(0)));
    deliver(latest.id, 0);
    deliveries.push(chaosDelivery(earlier, platformId, send.resourceId, 'OUT_OF_ORDER', at(OUT_OF_ORDER_GAP_SECONDS)));
    deliver(earlier.id, OUT_OF_ORDER_GAP_SECONDS);
  } else {
    const event = { id: newId('Webhook', now), type: send.type, timestamp: now, data: send.data };
    const delay = send.mode === 'DELAYED' ? send.delaySeconds : 0;
    const copies = send.mode === 'DUPLICATE' ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      deliveries.push(chaosDelivery(event, platformId, resourceIdOf(send.data), send.mode, at(delay)));
    }
    // One message: its claim takes every due delivery of the event, so a DUPLICATE pair goes out together.
    deliver(event.id, delay);
  }
  statements.push(db.insert(webhookDeliveries).values(deliveries));
  await db.batch(statements as [Statement, ...Statement[]]);
  await sendMessages(deps.queue, messages, deps.log);
  return deliveries.map((d) => ({
    ...d,
    lastAttemptAt: null,
    lastResponseStatus: null,
    lastError: null,
    url: null,
    deliveredAt: null,
    payload: null,
    signature: null,
    lastResponseBody: null,
  }));
}

/** `OUTGOING_PAYMENT.COMPLETED` → `OUTGOING_PAYMENT`. */
const objectOf = (type: WebhookType) => type.split('.')[0]!;

/**
 * The resource's two latest distinct events of the type's object (OUTGOING_PAYMENT.*), newest first, read
 * through the (platform, resource, id) index: its latest few delivery rows, with their events' times.
 */
async function pastEvents(deps: WebhookDeps, platformId: string, type: WebhookType, resourceId: string) {
  const rows = await deps.db
    .select(eventFields)
    .from(webhookDeliveries)
    .leftJoin(webhookEvents, legacyEvent)
    .where(
      and(
        eq(webhookDeliveries.platformId, platformId),
        eq(webhookDeliveries.resourceId, resourceId),
        like(webhookDeliveries.eventType, `${objectOf(type)}.%`),
      ),
    )
    .orderBy(desc(webhookDeliveries.id))
    .limit(RESOURCE_ROWS);
  const byEvent = new Map(rows.map((r) => [r.id, r]));
  // The events' order is their time; their ids (UUIDv7) break ties.
  return [...byEvent.values()].sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}
