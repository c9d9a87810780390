// The webhook outbox: an event and its delivery written with the change, and dispatched after it.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../db/client';
import { platforms, webhookDeliveries, webhookEvents, type WebhookEventRow } from '../db/schema';
import { newId } from '../crypto/ids';
import type { Logger } from '../http/log';
import { sendMessages, type JobMessage } from '../http/change';
import type { Statement } from '../db/client';
import type { WebhookType } from './schema';

/**
 * A platform's sandbox clock offset (ms), as SQL: its time minus this is wall-clock time, which is what the
 * sweep's `sweepAt` columns hold (their index then bounds the sweep across platforms).
 */
/**
 * A resource's deliveries of one event type (a payment's approval requests, a job's end event): through the
 * deliveries' resource index. `+` keeps SQLite off the platform's type index, a walk of all its deliveries of the type.
 */
export const deliveriesAbout = (platformId: string, resourceId: string, eventType: WebhookType): SQL =>
  and(
    eq(webhookDeliveries.platformId, platformId),
    eq(webhookDeliveries.resourceId, resourceId),
    sql`+${webhookDeliveries.eventType} = ${eventType}`,
  )!;

export const platformOffsetSql = (platformId: string | SQL | SQLiteColumn) =>
  sql<number>`coalesce((SELECT ${platforms.clockOffsetMs} FROM ${platforms} WHERE ${platforms.id} = ${platformId}), 0)`;

interface NewEvent {
  platformId: string;
  type: WebhookType;
  /** The resource as the API shows it (e.g. the transaction view). */
  data: Record<string, unknown>;
  /** Platform time of the change (`c.now`). */
  now: number;
}

/**
 * Outbox: the statement recording an event in its pending delivery. Put it in the SAME `db.batch` as the
 * state change that causes the event, then call `dispatchEvents` with `eventId` after it commits.
 */
export function eventStatements(db: Db, e: NewEvent): { statements: Statement[]; eventId: string } {
  const eventId = newId('Webhook', e.now);
  const statements: Statement[] = [
    db.insert(webhookDeliveries).values({ ...pendingDelivery({ ...e, resourceId: resourceIdOf(e.data) }, eventId), eventData: e.data }),
  ];
  return { statements, eventId };
}

/** An event as the API sends it: its id, platform, type, time and data. */
export type WebhookEvent = WebhookEventRow;

/**
 * The event a delivery carries, as select fields over `webhookDeliveries` left-joined to `webhookEvents` on
 * `legacyEvent`: an event written before migration 0035 is in its own row, read until retention purges it.
 */
export const eventFields = {
  id: webhookDeliveries.eventId,
  platformId: webhookDeliveries.platformId,
  type: webhookDeliveries.eventType,
  timestamp: sql<number>`coalesce(${webhookDeliveries.eventTimestamp}, ${webhookEvents.timestamp})`.mapWith(Number),
  data: sql<Record<string, unknown>>`coalesce(${webhookDeliveries.eventData}, ${webhookEvents.data})`.mapWith((v: string) => JSON.parse(v)),
};
export const legacyEvent = eq(webhookEvents.id, webhookDeliveries.eventId);

/** The resource an event is about: its data's `id`. */
export const resourceIdOf = (data: Record<string, unknown>): string | null => (typeof data.id === 'string' ? data.id : null);

/** The delivery row of a new event, but its data: pending, due now (its sweep time in wall-clock terms). */
export function pendingDelivery(
  e: { platformId: string; type: WebhookType; now: number; resourceId: string | SQL | null },
  eventId: string,
) {
  return {
    id: newId('WebhookDelivery', e.now),
    platformId: e.platformId,
    eventId,
    eventType: e.type,
    status: 'PENDING' as const,
    attempts: 0,
    nextAttemptAt: e.now,
    sweepAt: sql`${e.now} - ${platformOffsetSql(e.platformId)}`,
    createdAt: e.now,
    updatedAt: e.now,
    resourceId: e.resourceId,
    eventTimestamp: e.now,
  };
}

/** The queue message that delivers one event. */
export interface WebhookDeliverJob {
  type: 'webhook.deliver';
  eventId: string;
}

/** The queue messages that deliver events, to send once their batch commits. */
export const eventMessages = (eventIds: string[]): JobMessage[] =>
  eventIds.map((eventId) => ({ body: { type: 'webhook.deliver', eventId } satisfies WebhookDeliverJob }));

/**
 * After the batch commits: one queue message per event. Never throws; a message that could not be
 * sent is picked up by the cron sweep, because the delivery row is already due.
 */
export async function dispatchEvents(queue: Queue<unknown>, eventIds: string[], log?: Logger): Promise<void> {
  await sendMessages(queue, eventMessages(eventIds), log);
}
