import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { platforms, webhookDeliveries, webhookEvents, type WebhookDeliveryRow } from '../db/schema';
import { iso } from '../common/time';
import { signWebhookBody } from '../crypto/webhook-signature';
import type { Logger } from '../http/log';
import type { WebhookDeliverJob } from './outbox';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const FIRST_RETRY_MS = 30_000;
export const MAX_RETRY_INTERVAL_MS = 30 * 60_000;
export const GIVE_UP_AFTER_MS = 3 * 24 * 60 * 60_000;
/** An attempt holds its delivery this long; if its worker dies, the sweep retries after it. */
export const LEASE_MS = 60_000;
/** Cloudflare Queues refuse a longer `delaySeconds` (12 h). */
export const MAX_QUEUE_DELAY_SECONDS = 43_200;
const RESPONSE_BODY_LIMIT = 16 * 1024;
/** Workers allow six simultaneous outgoing connections per invocation. */
const PARALLEL_SENDS = 6;

/** Delay before the retry that follows failed attempt number `attempts` (1-based): 30 s, 1 m, 2 m, 4 m, ... at most 30 m. */
export function retryDelayMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_INTERVAL_MS);
}

/** What delivery needs, built from `env` by the caller. */
export interface WebhookDeps {
  db: Db;
  queue: Queue<unknown>;
  /** WEBHOOK_SIGNING_KEY (base64 PKCS#8 DER, P-256). */
  signingKey: string | undefined;
  log: Logger;
}

export type AttemptOutcome =
  /** Nothing to do: already delivered, given up, not yet due, or another worker holds the attempt. */
  | { result: 'not_due' }
  | { result: 'skipped'; reason: string }
  | {
      result: 'delivered' | 'retry' | 'failed';
      url: string;
      responseStatus?: number;
      responseBody?: string;
      error?: string;
      nextAttemptAt?: number;
    };

/** The platform's clock (wall clock plus its sandbox offset), as SQL evaluated per delivery row. */
const platformNowSql = (realNow: number) =>
  sql<number>`(${realNow} + (SELECT ${platforms.clockOffsetMs} FROM ${platforms} WHERE ${platforms.id} = ${webhookDeliveries.platformId}))`;

/**
 * One delivery attempt of an event, if it is due. The attempt is claimed with a conditional update
 * (PENDING and due), which also moves `nextAttemptAt` a lease ahead, so concurrent callers (a redelivered
 * message, the consumer and the sweep) attempt it once. `realNow` is wall-clock ms; each platform's
 * sandbox offset is added in SQL.
 */
export async function deliverEvent(deps: WebhookDeps, eventId: string, realNow: number): Promise<AttemptOutcome> {
  const { db } = deps;
  const platformNow = platformNowSql(realNow);
  const [claimed, found] = await db.batch([
    db
      .update(webhookDeliveries)
      .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, nextAttemptAt: sql`${platformNow} + ${LEASE_MS}`, updatedAt: platformNow })
      .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.status, 'PENDING'), lte(webhookDeliveries.nextAttemptAt, platformNow)))
      .returning(),
    db
      .select({ event: webhookEvents, endpoint: platforms.webhookEndpoint, offset: platforms.clockOffsetMs })
      .from(webhookEvents)
      .innerJoin(platforms, eq(platforms.id, webhookEvents.platformId))
      .where(eq(webhookEvents.id, eventId)),
  ]);
  const delivery = claimed[0];
  const context = found[0];
  if (!delivery || !context) return { result: 'not_due' };
  const now = realNow + context.offset;

  if (!context.endpoint) {
    const reason = 'No webhookEndpoint is configured (PATCH /config to set one)';
    await record(db, delivery, { status: 'SKIPPED', lastError: reason, lastAttemptAt: now, nextAttemptAt: now, updatedAt: now });
    return { result: 'skipped', reason };
  }
  if (!deps.signingKey) throw new Error('WEBHOOK_SIGNING_KEY is not set');

  const { event } = context;
  const body = JSON.stringify({ id: event.id, type: event.type, timestamp: iso(event.timestamp), data: event.data });
  const signature = await signWebhookBody(deps.signingKey, body);
  const sent = await post(context.endpoint, body, signature);
  const base = {
    url: context.endpoint,
    lastAttemptAt: now,
    lastResponseStatus: sent.status ?? null,
    lastError: sent.error ?? null,
    updatedAt: now,
  };
  const outcome = { url: context.endpoint, responseStatus: sent.status, responseBody: sent.body, error: sent.error };

  // 2xx, or 409 (the platform already has this event id), is final success.
  if (sent.status !== undefined && ((sent.status >= 200 && sent.status < 300) || sent.status === 409)) {
    await record(db, delivery, { ...base, status: 'DELIVERED', deliveredAt: now, nextAttemptAt: now });
    return { result: 'delivered', ...outcome };
  }
  const next = now + retryDelayMs(delivery.attempts);
  // A TEST event reports its single attempt to the caller; retrying it would only add noise.
  if (event.type === 'TEST' || next > delivery.createdAt + GIVE_UP_AFTER_MS) {
    await record(db, delivery, { ...base, status: 'FAILED', nextAttemptAt: now });
    return { result: 'failed', ...outcome };
  }
  const stillOurs = await record(db, delivery, { ...base, nextAttemptAt: next });
  if (stillOurs) {
    const delaySeconds = Math.min(Math.ceil((next - now) / 1000), MAX_QUEUE_DELAY_SECONDS);
    try {
      await deps.queue.send({ type: 'webhook.deliver', eventId } satisfies WebhookDeliverJob, { delaySeconds });
    } catch (error) {
      deps.log.warn('webhook retry not queued; the sweep will retry', { eventId, error: String(error) });
    }
  }
  return { result: 'retry', ...outcome, nextAttemptAt: next };
}

/** Writes an attempt's result, only if this attempt still holds the delivery (its lease was not taken over). */
async function record(db: Db, claimed: WebhookDeliveryRow, changes: Partial<WebhookDeliveryRow>): Promise<boolean> {
  const rows = await db
    .update(webhookDeliveries)
    .set(changes)
    .where(and(eq(webhookDeliveries.id, claimed.id), eq(webhookDeliveries.status, 'PENDING'), eq(webhookDeliveries.attempts, claimed.attempts)))
    .returning({ id: webhookDeliveries.id });
  return rows.length > 0;
}

interface Sent {
  status?: number;
  body?: string;
  error?: string;
}

async function post(url: string, body: string, signature: string): Promise<Sent> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signature, 'User-Agent': 'payments-platform-webhooks/1' },
      body,
      // A redirect is not an acknowledgement: it is recorded and retried like any other non-2xx.
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    return { status: res.status, body: await readCapped(res) };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') return { error: `No response within ${DELIVERY_TIMEOUT_MS / 1000} s` };
    return { error: `Request failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500) };
  }
}

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // a body that breaks off still leaves the status, which is what counts
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  return new TextDecoder().decode(all.subarray(0, RESPONSE_BODY_LIMIT));
}

/** Event ids of deliveries due by each platform's own clock, oldest first. */
export async function dueDeliveryEventIds(db: Db, realNow: number, opts: { platformId?: string; limit?: number } = {}): Promise<string[]> {
  const rows = await db
    .select({ eventId: webhookDeliveries.eventId })
    .from(webhookDeliveries)
    .innerJoin(platforms, eq(platforms.id, webhookDeliveries.platformId))
    .where(
      and(
        eq(webhookDeliveries.status, 'PENDING'),
        lte(webhookDeliveries.nextAttemptAt, sql`${realNow} + ${platforms.clockOffsetMs}`),
        opts.platformId ? eq(webhookDeliveries.platformId, opts.platformId) : undefined,
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(opts.limit ?? 60);
  return rows.map((r) => r.eventId);
}

/** Cron backstop: attempts every overdue delivery (lost messages, expired leases), a few at a time. */
export async function deliverDueWebhooks(deps: WebhookDeps, realNow: number, opts: { platformId?: string; limit?: number } = {}): Promise<number> {
  const eventIds = await dueDeliveryEventIds(deps.db, realNow, opts);
  let attempted = 0;
  for (let i = 0; i < eventIds.length; i += PARALLEL_SENDS) {
    const results = await Promise.allSettled(eventIds.slice(i, i + PARALLEL_SENDS).map((id) => deliverEvent(deps, id, realNow)));
    for (const [j, r] of results.entries()) {
      if (r.status === 'rejected') deps.log.error('webhook delivery failed', { eventId: eventIds[i + j], error: String(r.reason) });
      else if (r.value.result !== 'not_due') attempted++;
    }
  }
  return attempted;
}
