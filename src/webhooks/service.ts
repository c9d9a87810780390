// Webhook deliveries: view, list, read, and sending the TEST event.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import { webhookDeliveries, type WebhookDeliveryRow } from '../db/schema';
import { WebhookDeliveryStatus } from '../db/enums';
import { iso } from '../common/time';
import { ApiError, notFound, retryableConflict } from '../http/errors';
import { keysetList } from '../http/pagination';
import { deliverEvent, type WebhookDeps } from './delivery';
import { eventStatements } from './outbox';
import type { WebhookDelivery, WebhookDeliveryMode, WebhookType } from './schema';

export const deliveryNotFound = () => notFound('WEBHOOK_DELIVERY_NOT_FOUND', 'Webhook delivery not found');

export function deliveryView(row: WebhookDeliveryRow): WebhookDelivery {
  const view: WebhookDelivery = {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType as WebhookType,
    status: row.status,
    mode: row.mode as WebhookDeliveryMode,
    attempts: row.attempts,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
  if (row.url) view.url = row.url;
  if (row.lastResponseStatus !== null) view.lastResponseStatus = row.lastResponseStatus;
  if (row.lastError) view.lastError = row.lastError;
  if (row.lastAttemptAt !== null) view.lastAttemptAt = iso(row.lastAttemptAt);
  if (row.status === 'PENDING') view.nextAttemptAt = iso(row.nextAttemptAt);
  if (row.deliveredAt !== null) view.deliveredAt = iso(row.deliveredAt);
  // NULL on rows from before these columns, and before a first attempt: the fields are simply absent.
  if (row.payload !== null) view.payload = row.payload;
  if (row.signature !== null) view.signature = row.signature;
  if (row.lastResponseBody !== null) view.lastResponseBody = row.lastResponseBody;
  return view;
}

interface DeliveryFilters {
  eventType?: WebhookType;
  status?: WebhookDeliveryRow['status'];
  eventId?: string;
  limit: number;
  cursor?: string;
}

// The deliveries' counters, one per status (migration triggers); the total is their sum (migration 0036).
const statusCounter = (status: WebhookDeliveryStatus) => `webhook_deliveries:status=${status}`;
const ALL_STATUS_COUNTERS = WebhookDeliveryStatus.options.map(statusCounter);

/**
 * GET /webhooks/deliveries: newest first by (createdAt, id), the order of the indexes the replay reads too, with
 * the filters, each served by one of them (platform first, then the status or event type). `totalCount` comes from
 * the maintained counters (per status, all as their sum), or by counting where `eventId` bounds the
 * set to its few rows (one, or a sandbox chaos pair); it is omitted for `eventType` without `eventId`, which has no counter.
 */
export const deliveryList = keysetList((platformId: SQL, f: DeliveryFilters) => {
  // With an event id, its index finds the event's few deliveries in the page's order (unary `+` keeps SQLite off the platform's index).
  const mine = f.eventId ? sql`+${webhookDeliveries.platformId} = ${platformId}` : eq(webhookDeliveries.platformId, platformId);
  const where: (SQL | undefined)[] = [mine];
  if (f.eventType) where.push(eq(webhookDeliveries.eventType, f.eventType));
  // With both, the event type's index serves the page and the status is checked on its rows (`+`: as before 0034).
  if (f.status) where.push(f.eventType ? sql`+${webhookDeliveries.status} = ${f.status}` : eq(webhookDeliveries.status, f.status));
  if (f.eventId) where.push(eq(webhookDeliveries.eventId, f.eventId));
  const total = f.eventId
    ? { withTotal: true }
    : f.eventType
      ? {}
      : { counted: { platformId, list: f.status ? statusCounter(f.status) : ALL_STATUS_COUNTERS } };
  return {
    table: webhookDeliveries,
    idColumn: webhookDeliveries.id,
    // A cursor carries (createdAt, id); one of a release that paged by id alone is refused (400), not misread.
    sortColumn: webhookDeliveries.createdAt,
    sortKey: (row: WebhookDeliveryRow) => row.createdAt,
    order: 'desc' as const,
    where: and(...where),
    limit: f.limit,
    cursor: f.cursor,
    ...total,
  };
}, deliveryView);

/** GET /webhooks/deliveries/{id} as a load (`platformId` SQL: see `RouteSpec.load`); `deliveryFrom` reads it. */
export function deliveryLoads(db: Db, platformId: SQL, deliveryId: string) {
  return {
    delivery: db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.platformId, platformId)))
      .limit(1),
  };
}

export function deliveryFrom(loaded: Loaded<ReturnType<typeof deliveryLoads>>) {
  const row = loaded.delivery[0];
  if (!row) throw deliveryNotFound();
  return deliveryView(row);
}

/**
 * `POST /webhooks/test` (and `/sandbox/webhooks/test`): records a TEST event (listed like any other) and attempts it at once,
 * reporting the endpoint's answer. A TEST event is attempted once, never retried.
 */
export async function sendTestWebhook(deps: WebhookDeps, platformId: string, webhookEndpoint: string | null, now: number, realNow: number) {
  if (!webhookEndpoint) {
    throw new ApiError('WEBHOOK_ENDPOINT_NOT_SET', 'No webhookEndpoint is configured; set one with PATCH /config');
  }
  const { statements, eventId } = eventStatements(deps.db, { platformId, type: 'TEST', data: {}, now });
  await deps.db.batch(statements as [(typeof statements)[number], ...typeof statements]);
  const outcome = await deliverEvent(deps, eventId, realNow);
  if (outcome.result === 'not_due') throw retryableConflict('The TEST event is already being delivered; see GET /webhooks/deliveries');
  if (outcome.result === 'skipped') throw new ApiError('WEBHOOK_ENDPOINT_NOT_SET', outcome.reason);
  if (outcome.result !== 'delivered') {
    const details: Record<string, unknown> = { url: outcome.url, eventId };
    if (outcome.responseStatus !== undefined) details.response_status = outcome.responseStatus;
    if (outcome.responseBody) details.response_body = outcome.responseBody;
    if (outcome.error) details.error = outcome.error;
    const why = outcome.error ?? `the endpoint answered HTTP ${outcome.responseStatus}`;
    throw new ApiError('WEBHOOK_DELIVERY_ERROR', `Webhook delivery failed: ${why}`, details);
  }
  return { url: outcome.url, response_status: outcome.responseStatus!, response_body: outcome.responseBody ?? '', eventId };
}
