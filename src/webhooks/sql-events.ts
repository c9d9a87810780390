// Outbox statements whose event is decided, or computed, inside the batch.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { webhookDeliveries, webhookEvents } from '../db/schema';
import { newId } from '../crypto/ids';
import type { Statement } from '../db/client';
import type { WebhookType } from './schema';
import { platformOffsetSql } from './outbox';

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
  const deliveryId = newId('WebhookDelivery', e.now);
  // Both INSERT ... SELECT list every column in table order (id, platform_id, type, timestamp, data; the
  // delivery's payload, signature and last_response_body as migration 0005 added them, then sweep_at).
  const event = db
    .insert(webhookEvents)
    .select(sql`SELECT ${eventId}, ${e.platformId}, ${e.type}, ${e.now}, ${e.data} WHERE ${e.where ?? sql`1`}`);
  const delivery = db.insert(webhookDeliveries).select(
    sql`SELECT ${deliveryId}, ${e.platformId}, ${eventId}, ${e.type}, 'PENDING', 0, ${e.now}, NULL, NULL, NULL, NULL, NULL, ${e.now}, ${e.now}, NULL, NULL, NULL,
          ${e.now} - ${platformOffsetSql(e.platformId)}
          WHERE EXISTS (SELECT 1 FROM ${webhookEvents} WHERE ${webhookEvents.id} = ${eventId})`,
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
