// Outbox statements whose event is decided, or computed, inside the batch.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { insertSelect } from '../db/insert-select';
import { webhookDeliveries, webhookEvents } from '../db/schema';
import { newId } from '../crypto/ids';
import type { Statement } from '../db/client';
import type { WebhookType } from './schema';
import { pendingDelivery } from './outbox';

/**
 * Outbox statements whose event is decided inside the batch: the event row is inserted only when
 * `where` holds at that point of the batch, and its data may be computed in SQL from the rows the
 * batch just changed (a balance, a job's final progress). The delivery row follows its event.
 * Like `eventStatements`, put them in the batch of the change and dispatch `eventId` after commit
 * (an event that was not written is simply not found by the consumer).
 */
export function sqlEventStatements(
  db: Db,
  e: { platformId: string; type: WebhookType; data: SQL; where?: SQL; now: number },
): { statements: Statement[]; eventId: string } {
  const eventId = newId('Webhook', e.now);
  const event = insertSelect(
    db,
    webhookEvents,
    { id: eventId, platformId: e.platformId, type: e.type, timestamp: e.now, data: e.data },
    sql`WHERE ${e.where ?? sql`1`}`,
  );
  const delivery = insertSelect(
    db,
    webhookDeliveries,
    pendingDelivery(
      {
        ...e,
        resourceId: sql`(SELECT json_extract(${webhookEvents.data}, '$.id') FROM ${webhookEvents} WHERE ${webhookEvents.id} = ${eventId})`,
      },
      eventId,
    ),
    sql`WHERE EXISTS (SELECT 1 FROM ${webhookEvents} WHERE ${webhookEvents.id} = ${eventId})`,
  );
  return { statements: [event, delivery], eventId };
}

/** JSON data fixed in JS, written only when `where` holds. */
export function conditionalEventStatements(
  db: Db,
  e: { platformId: string; type: WebhookType; data: Record<string, unknown>; where: SQL; now: number },
) {
  return sqlEventStatements(db, { ...e, data: sql`json(${JSON.stringify(e.data)})` });
}
