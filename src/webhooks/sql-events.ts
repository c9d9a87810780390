// Outbox statements whose event is decided, or computed, inside the batch.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import { insertSelect } from '../db/insert-select';
import { webhookDeliveries } from '../db/schema';
import { newId } from '../crypto/ids';
import type { Statement } from '../db/client';
import type { WebhookType } from './schema';
import { pendingDelivery } from './outbox';

/**
 * Outbox statements whose event is decided inside the batch: the event (in its delivery row) is inserted only
 * when `where` holds at that point of the batch, and its data may be computed in SQL from the rows the batch
 * just changed (a balance, a job's final progress). Like `eventStatements`, put them in the batch of the
 * change and dispatch `eventId` after commit (an event that was not written is simply not found by the consumer).
 */
export function sqlEventStatements(
  db: Db,
  e: { platformId: string; type: WebhookType; data: SQL; where?: SQL; now: number },
): { statements: Statement[]; eventId: string } {
  const eventId = newId('Webhook', e.now);
  // The resource is the data's `id`, read from the same SQL (a few index probes, evaluated twice).
  const delivery = insertSelect(
    db,
    webhookDeliveries,
    { ...pendingDelivery({ ...e, resourceId: sql`json_extract(${e.data}, '$.id')` }, eventId), eventData: e.data },
    sql`WHERE ${e.where ?? sql`1`}`,
  );
  return { statements: [delivery], eventId };
}

/** JSON data fixed in JS, written only when `where` holds. */
export function conditionalEventStatements(
  db: Db,
  e: { platformId: string; type: WebhookType; data: Record<string, unknown>; where: SQL; now: number },
) {
  return sqlEventStatements(db, { ...e, data: sql`json(${JSON.stringify(e.data)})` });
}
