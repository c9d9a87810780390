// Signed delivery from the outbox: claim, attempt, record, retry schedule.
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { database, type Db, type Statement } from '../db/client';
import { platforms, webhookDeliveries, webhookEvents, type WebhookDeliveryRow } from '../db/schema';
import { endpointProblem } from '../common/endpoint-url';
import { iso } from '../common/time';
import { signWebhookBody } from '../crypto/webhook-signature';
import type { Env, Settings } from '../env';
import type { Logger } from '../http/log';
import { eventFields, legacyEvent, type WebhookDeliverJob, type WebhookEvent } from './outbox';
import { ECHOED_BODY_BYTES, type WebhookType } from './schema';
import type { Deps } from '../http/deps';

const DELIVERY_TIMEOUT_MS = 10_000;
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_INTERVAL_MS = 30 * 60_000;
export const GIVE_UP_AFTER_MS = 3 * 24 * 60 * 60_000;
/** An attempt holds its delivery this long; if its worker dies, the sweep retries after it. */
export const LEASE_MS = 60_000;
/** Cloudflare Queues refuse a longer `delaySeconds` (12 h). */
export const MAX_QUEUE_DELAY_SECONDS = 43_200;
/** Workers allow six simultaneous outgoing connections per invocation. */
const PARALLEL_SENDS = 6;

/** Delay before the retry that follows failed attempt number `attempts` (1-based): 30 s, 1 m, 2 m, 4 m, ... at most 30 m. */
export function retryDelayMs(attempts: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_INTERVAL_MS);
}

/** What delivery needs besides the Deps of every service (whose `mode` picks the endpoint rules). */
export interface WebhookDeps extends Deps {
  /** WEBHOOK_SIGNING_KEY (base64 PKCS#8 DER, P-256): each platform's key is derived from it. */
  signingKey: string | undefined;
  /** What answers mean beyond delivery; a delivery without them (a test event) only records the answer. */
  answers?: AnswerHandlers;
}

export function webhookDeps(env: Env, s: Settings, log: Logger, db: Db = database(env.DB)): WebhookDeps {
  return { db, queue: env.JOBS, signingKey: s.webhookSigningKey, mode: s.mode, log };
}

type AttemptOutcome =
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
  return (await deliverEvents(deps, [eventId], realNow))[0]!;
}

/** An attempt's result to write, and what to do once it is written. */
interface Pending {
  index: number;
  claimed: WebhookDeliveryRow;
  changes: Partial<WebhookDeliveryRow>;
  /** Seconds until the retry message, for an attempt to retry. */
  retryInSeconds?: number;
}

/**
 * What an answer means beyond delivery, for event types whose answer is a decision (an incoming payment's
 * approval request). Areas register one per type at module load, as transition handlers are.
 */
export interface AnswerHandler {
  /**
   * Applies the decision an answer carries, idempotently (a redelivered event applies nothing twice), and
   * says whether the answer settles the delivery: true for a decision (DELIVERED, never retried), false to
   * let the usual rules decide (2xx and 409 delivered, anything else retried).
   */
  apply(deps: WebhookDeps, event: WebhookEvent, answer: { status: number; body: string }, now: number): Promise<boolean>;
}

/** The answer handler of each event type whose answer is a decision: an explicit map, built next to the queue consumer. */
export type AnswerHandlers = Readonly<Partial<Record<WebhookType, AnswerHandler>>>;

/** An answer carrying a decision may hold a JSON body (receiverCustomerInfo, a reason): read more of it than is echoed. */
const DECISION_BODY_BYTES = 16 * 1024;

const NO_ENDPOINT = 'No webhookEndpoint is configured (PATCH /config to set one)';

/**
 * `deliverEvent` for several events (a queue batch, a sweep): every claim in one D1 round trip, the
 * POSTs `PARALLEL_SENDS` at a time, every result in one more round trip, the retry messages in one send.
 * Due deliveries of platforms without an endpoint are settled (SKIPPED) by the claim batch itself.
 * Outcomes are in the order of `eventIds`.
 */
export async function deliverEvents(deps: WebhookDeps, eventIds: string[], realNow: number): Promise<AttemptOutcome[]> {
  if (eventIds.length === 0) return [];
  const { db } = deps;
  const platformNow = platformNowSql(realNow);
  // Unary `+`: the event index finds the few rows of each event (the status index would walk every pending one).
  const isPending = sql`+${webhookDeliveries.status} = 'PENDING'`;
  const due = and(inArray(webhookDeliveries.eventId, eventIds), isPending, lte(webhookDeliveries.nextAttemptAt, platformNow));
  const noEndpoint = sql`(SELECT ${platforms.webhookEndpoint} FROM ${platforms} WHERE ${platforms.id} = ${webhookDeliveries.platformId}) IS NULL`;
  const skip = db
    .update(webhookDeliveries)
    .set({
      status: 'SKIPPED',
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      lastError: NO_ENDPOINT,
      lastAttemptAt: platformNow,
      nextAttemptAt: platformNow,
      updatedAt: platformNow,
      sweepAt: realNow,
    })
    .where(and(due, noEndpoint))
    .returning({ eventId: webhookDeliveries.eventId });
  // Every due delivery of the events claimed at once (those without an endpoint were just settled by the skip).
  const claim = db
    .update(webhookDeliveries)
    .set({
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      nextAttemptAt: sql`${platformNow} + ${LEASE_MS}`,
      updatedAt: platformNow,
      sweepAt: realNow + LEASE_MS,
    })
    .where(due)
    .returning();
  const contexts = db
    .select({ event: eventFields, endpoint: platforms.webhookEndpoint, offset: platforms.clockOffsetMs })
    .from(webhookDeliveries)
    .innerJoin(platforms, eq(platforms.id, webhookDeliveries.platformId))
    .leftJoin(webhookEvents, legacyEvent)
    .where(inArray(webhookDeliveries.eventId, eventIds));
  const [skipped, claimed, read] = await db.batch([skip, claim, contexts]);
  const skippedIds = new Set(skipped.map((r) => r.eventId));
  const outcomes: AttemptOutcome[] = eventIds.map((id) =>
    skippedIds.has(id) ? { result: 'skipped', reason: NO_ENDPOINT } : { result: 'not_due' },
  );
  // An event's deliveries share its context (a sandbox DUPLICATE has two deliveries of the event, both sent).
  // (Its id is `event.id`: a batch's rows come back by column name, so the same column twice would collapse.)
  const context = new Map(read.map((r) => [r.event.id, r]));
  const pending: Pending[] = [];
  const sends: { index: number; claimed: WebhookDeliveryRow; event: WebhookEvent; endpoint: string; now: number }[] = [];
  const index = new Map(eventIds.map((id, i) => [id, i]));
  for (const row of claimed) {
    const of = context.get(row.eventId);
    // A claimed delivery has an endpoint: those without one were settled by the skip, earlier in the same transaction.
    if (!of?.endpoint) continue;
    sends.push({
      index: index.get(row.eventId)!,
      claimed: row,
      event: of.event as WebhookEvent,
      endpoint: of.endpoint,
      now: realNow + of.offset,
    });
  }
  const signingKey = deps.signingKey;
  if (sends.length > 0 && signingKey) {
    for (let i = 0; i < sends.length; i += PARALLEL_SENDS) {
      await Promise.all(
        sends.slice(i, i + PARALLEL_SENDS).map(async (send) => {
          const attempt = await attemptSend(deps, signingKey, send.claimed, send.event, send.endpoint, send.now);
          outcomes[send.index] = attempt.outcome;
          // The next attempt (or, settled, the settling) in wall-clock time, for the sweep's index.
          const changes = { ...attempt.changes, sweepAt: attempt.changes.nextAttemptAt - (send.now - realNow) };
          pending.push({ index: send.index, claimed: send.claimed, changes, retryInSeconds: attempt.retryInSeconds });
        }),
      );
    }
  }
  await recordAll(deps, eventIds, pending);
  // Claimed but not attempted: the lease runs out and a later sweep or redelivery attempts them.
  if (sends.length > 0 && !signingKey) throw new Error('WEBHOOK_SIGNING_KEY is not set');
  return outcomes;
}

/**
 * One POST and the result to record: delivered, failed for good, or retried later. An endpoint the rules
 * refuse now (stored before them, or under the other mode) is not fetched: the attempt fails and is
 * retried like any other, so fixing the endpoint lets the event through.
 */
async function attemptSend(
  deps: WebhookDeps,
  signingKey: string,
  claimed: WebhookDeliveryRow,
  event: WebhookEvent,
  endpoint: string,
  now: number,
) {
  const body = claimed.payload ?? envelopeBody(event);
  const badSignature = claimed.mode === 'BAD_SIGNATURE';
  const { sent, delivered } = await sendAndDecide(deps, signingKey, event, endpoint, body, now, badSignature);
  const base = attemptColumns(endpoint, body, sent, now);
  const outcome = { url: endpoint, responseStatus: sent.status, responseBody: sent.body, error: sent.error };

  if (delivered) {
    return {
      outcome: { result: 'delivered' as const, ...outcome },
      changes: { ...base, status: 'DELIVERED' as const, deliveredAt: now, nextAttemptAt: now },
    };
  }
  const next = now + retryDelayMs(claimed.attempts);
  // A TEST event reports its single attempt to the caller; retrying it would only add noise. A BAD_SIGNATURE
  // delivery is meant to be refused: the refusal is its result, not a reason to retry.
  if (event.type === 'TEST' || badSignature || next > claimed.createdAt + GIVE_UP_AFTER_MS) {
    return { outcome: { result: 'failed' as const, ...outcome }, changes: { ...base, status: 'FAILED' as const, nextAttemptAt: now } };
  }
  return {
    outcome: { result: 'retry' as const, ...outcome, nextAttemptAt: next },
    changes: { ...base, nextAttemptAt: next },
    retryInSeconds: Math.min(Math.ceil((next - now) / 1000), MAX_QUEUE_DELAY_SECONDS),
  };
}

/**
 * One attempt at an event, scheduled or a resend: the signed POST, and the decision its answer carries for
 * an event type that has one (applied idempotently). Delivered when the answer decided, or acknowledged it.
 * `badSignature` (a sandbox BAD_SIGNATURE delivery) sends a signature that does not verify.
 */
export async function sendAndDecide(
  deps: WebhookDeps,
  signingKey: string,
  event: WebhookEvent,
  endpoint: string,
  body: string,
  now: number,
  badSignature = false,
) {
  const handler = deps.answers?.[event.type as WebhookType];
  const bodyBytes = handler ? DECISION_BODY_BYTES : ECHOED_BODY_BYTES;
  const sent = await sendSigned(deps, signingKey, event.platformId, endpoint, body, bodyBytes, badSignature);
  const decided =
    handler !== undefined &&
    sent.status !== undefined &&
    (await handler.apply(deps, event, { status: sent.status, body: sent.body ?? '' }, now));
  if (sent.body !== undefined) sent.body = sent.body.slice(0, ECHOED_BODY_BYTES);
  return { sent, delivered: decided || acknowledged(sent) };
}

/** The JSON body of an event's first attempt; later attempts send the stored `payload`, these same bytes. */
export function envelopeBody(event: WebhookEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: iso(event.timestamp), data: event.data });
}

/** 2xx, or 409 (the platform already has this event id), is final success. */
export function acknowledged(sent: Sent): boolean {
  return sent.status !== undefined && ((sent.status >= 200 && sent.status < 300) || sent.status === 409);
}

/**
 * One signed POST of `body` to `endpoint`, reading at most `bodyBytes` of the answer. An endpoint the
 * rules of `deps.mode` refuse is not fetched: nothing is sent, and the result says why.
 */
async function sendSigned(
  deps: WebhookDeps,
  signingKey: string,
  platformId: string,
  endpoint: string,
  body: string,
  bodyBytes: number,
  badSignature: boolean,
): Promise<Sent> {
  const refused = endpointProblem(endpoint, deps.mode === 'production');
  if (refused) return { error: `webhookEndpoint refused: ${refused}` };
  // A bad signature is the platform's own key over other bytes: well formed, and it does not verify.
  const signature = await signWebhookBody(signingKey, platformId, badSignature ? `${body} ` : body);
  return { ...(await post(endpoint, body, signature, deps.log, bodyBytes)), signature };
}

/** What every attempt records: where it went, the bytes and signature sent, and the answer (capped). */
export function attemptColumns(endpoint: string, body: string, sent: Sent, now: number) {
  return {
    url: endpoint,
    payload: body,
    signature: sent.signature ?? null,
    lastAttemptAt: now,
    lastResponseStatus: sent.status ?? null,
    lastResponseBody: sent.body?.slice(0, ECHOED_BODY_BYTES) ?? null,
    lastError: sent.error ?? null,
    updatedAt: now,
  };
}

/**
 * Writes every attempt's result in one round trip, each only if its attempt still holds the delivery (its
 * lease was not taken over), then queues the retries that are still ours.
 */
async function recordAll(deps: WebhookDeps, eventIds: string[], pending: Pending[]): Promise<void> {
  if (pending.length === 0) return;
  const { db } = deps;
  const updates: Statement[] = pending.map(({ claimed, changes }) =>
    db
      .update(webhookDeliveries)
      .set(changes)
      .where(
        and(
          eq(webhookDeliveries.id, claimed.id),
          eq(webhookDeliveries.status, 'PENDING'),
          eq(webhookDeliveries.attempts, claimed.attempts),
        ),
      )
      .returning({ id: webhookDeliveries.id }),
  );
  const written = (await db.batch(updates as [Statement, ...Statement[]])) as unknown[][];
  const retries = pending
    .filter((p, i) => p.retryInSeconds !== undefined && written[i]!.length > 0)
    .map((p) => ({
      body: { type: 'webhook.deliver', eventId: eventIds[p.index]! } satisfies WebhookDeliverJob,
      delaySeconds: p.retryInSeconds,
    }));
  if (retries.length === 0) return;
  try {
    await deps.queue.sendBatch(retries);
  } catch (error) {
    deps.log.warn('webhook retry not queued; the sweep will retry', { count: retries.length, error: String(error) });
  }
}

/** An attempt's result: the answer's status and body, or why there was none; the signature when something was sent. */
export interface Sent {
  status?: number;
  body?: string;
  error?: string;
  signature?: string;
}

async function post(url: string, body: string, signature: string, log: Logger, bodyBytes: number): Promise<Sent> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signature, 'User-Agent': 'payments-platform-webhooks/1' },
      body,
      // A redirect is not an acknowledgement: it is recorded and retried like any other non-2xx.
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    return { status: res.status, body: await readCapped(res, bodyBytes) };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') return { error: `No response within ${DELIVERY_TIMEOUT_MS / 1000} s` };
    // The runtime's text (DNS, TCP, TLS details) stays in the log: shown to the platform it would map networks.
    log.info('webhook POST failed', { error: String(error) });
    return { error: 'Connection failed' };
  }
}

async function readCapped(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
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
  return new TextDecoder().decode(all.subarray(0, limit));
}
