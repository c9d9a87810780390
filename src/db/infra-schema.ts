// The tables of the machinery: idempotency keys, due transitions, webhook events and deliveries, counters, sandbox fault rules.
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { WebhookDeliveryStatus } from './enums';

/**
 * Tables of the background machinery: the webhook outbox, due transitions and idempotency keys.
 * Re-exported by schema.ts; no foreign keys here, so this file needs nothing from it.
 */

/**
 * Events of releases before migration 0035, which carried an event apart from its delivery. Written no more:
 * an event lives in its deliveries (`event_timestamp`, `event_data`); these are read until the webhook
 * retention has purged them with their deliveries, and a later release drops the table.
 */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    type: text('type').notNull(),
    /** Platform time of the change; rendered as the envelope's `timestamp`. */
    timestamp: integer('timestamp').notNull(),
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  // No platform index: an event is read by its id, and found by its deliveries (their resource index; the sandbox
  // reset and snapshots take a platform's events through its deliveries, sandbox/reset.ts).
);

export type { WebhookDeliveryStatus };

/**
 * An event and its delivery state to the platform's webhookEndpoint: one row per event, written in the same
 * batch as the change that caused it, and more for the sandbox's webhook chaos (a DUPLICATE pair, an
 * OUT_OF_ORDER redelivery, each carrying the event again), so `event_id` is not unique.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** Platform time the next attempt is due; while an attempt runs it is the lease's end. */
    nextAttemptAt: integer('next_attempt_at').notNull(),
    lastAttemptAt: integer('last_attempt_at'),
    lastResponseStatus: integer('last_response_status'),
    lastError: text('last_error'),
    /** The endpoint of the last attempt (the platform's webhookEndpoint at that time). */
    url: text('url'),
    deliveredAt: integer('delivered_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** The exact body of the last attempt; every later attempt (and a resend) sends these bytes again. NULL before it. */
    payload: text('payload'),
    /** The `X-Service-Signature` sent with the last attempt; NULL when it sent nothing (endpoint refused). */
    signature: text('signature'),
    /** The endpoint's answer to the last attempt, its first ECHOED_BODY_BYTES characters; NULL without an answer. */
    lastResponseBody: text('last_response_body'),
    /**
     * Wall-clock ms at which the sweep next looks at the row, so its index bounds the sweep without each
     * platform's sandbox offset: while PENDING, `nextAttemptAt` minus that offset (shifted when the platform's
     * clock advances) or later once the sweep has queued it; once settled, when it settled (retention counts
     * from there). NULL only on rows an upgrade left settled.
     */
    sweepAt: integer('sweep_at'),
    /** How the delivery was made (WebhookDeliveryMode): NORMAL, or a sandbox chaos mode. */
    mode: text('mode').notNull().default('NORMAL'),
    /** The `id` of the event's data (the resource it is about), so a resource's past events are found through an index. */
    resourceId: text('resource_id'),
    /** Platform time of the event's change: the envelope's `timestamp` (NULL before 0035: in `webhook_events`). */
    eventTimestamp: integer('event_timestamp'),
    /** The event's data, the resource as the API showed it (NULL before 0035: in `webhook_events`). */
    eventData: text('event_data', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [
    // An event's deliveries (the queue's claim; the list by eventId, in the list's order).
    index('webhook_deliveries_event_idx').on(t.eventId, t.createdAt, t.id),
    // A resource's deliveries, newest last (OUT_OF_ORDER finds its two latest events here).
    index('webhook_deliveries_resource_idx').on(t.platformId, t.resourceId, t.id),
    // One set for the list (newest first, by status or by event type) and the replay (oldest first within a
    // creation-time range, all, of a type or in a status): both in (createdAt, id) order. Not by id alone: ids
    // (UUIDv7) follow their isolate's latest time, which another platform's sandbox clock can push ahead.
    index('webhook_deliveries_platform_created_idx').on(t.platformId, t.createdAt, t.id),
    index('webhook_deliveries_platform_type_created_idx').on(t.platformId, t.eventType, t.createdAt, t.id),
    index('webhook_deliveries_platform_status_created_idx').on(t.platformId, t.status, t.createdAt, t.id),
    // The sweep: PENDING rows due by now, settled rows past retention.
    index('webhook_deliveries_sweep_idx').on(t.status, t.sweepAt),
  ],
);

/**
 * Delayed state changes: a row per transition with its due time, applied by a delayed queue message or the
 * cron sweep. `applications` counts how often it was applied; the CHECK makes a second application fail,
 * rolling back its whole batch.
 */
export const dueTransitions = sqliteTable(
  'due_transitions',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    subjectId: text('subject_id').notNull(),
    /** Handler kind in the transition registry (e.g. `payment.step`). */
    kind: text('kind').notNull(),
    fromStatus: text('from_status'),
    toStatus: text('to_status'),
    /** Handler-specific details (e.g. a failure reason). */
    data: text('data', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** Platform time at which it is due. */
    dueAt: integer('due_at').notNull(),
    appliedAt: integer('applied_at'),
    applications: integer('applications').notNull().default(0),
    createdAt: integer('created_at').notNull(),
    /**
     * Wall-clock ms at which the sweep next looks at the row, so its index bounds the sweep without each
     * platform's sandbox offset: `dueAt` minus that offset (shifted when the platform's clock advances), or
     * later once the sweep has queued it; once applied, when it was applied (the purge counts from there).
     */
    sweepAt: integer('sweep_at'),
  },
  (t) => [
    check('due_transitions_applied_once', sql`${t.applications} <= 1`),
    // Rows still to apply (the sweep), and applied rows (their purge): each row is in one of the two.
    index('due_transitions_sweep_idx')
      .on(t.sweepAt)
      .where(sql`${t.appliedAt} IS NULL`),
    index('due_transitions_applied_idx')
      .on(t.sweepAt)
      .where(sql`${t.appliedAt} IS NOT NULL`),
    index('due_transitions_platform_idx').on(t.platformId, t.appliedAt, t.dueAt),
    index('due_transitions_subject_idx').on(t.subjectId),
  ],
);

export type IdempotencyState = 'IN_FLIGHT' | 'DONE';

/** Idempotency-Key records (IETF draft): the first request's fingerprint and, once done, its response. */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    platformId: text('platform_id').notNull(),
    /** Namespace inside the platform: `platform` for API-token callers, an agent id for agents. */
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of method, path and canonical body. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state').$type<IdempotencyState>().notNull(),
    /** Random per claim, so only the claimant stores or releases it. */
    claimToken: text('claim_token').notNull(),
    /** An in-flight claim older than this is abandoned (its worker died) and may be taken over. */
    lockedUntil: integer('locked_until').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.scope, t.key] }), index('idempotency_keys_expiry_idx').on(t.expiresAt)],
);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type DueTransitionRow = typeof dueTransitions.$inferSelect;
export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;

/**
 * Maintained row counts for list totals, so no page counts its table: one row per platform and counted set
 * (`list`, e.g. `customers` or `transactions:status=COMPLETED`). SQLite triggers on the counted tables keep
 * them (migrations), so every write path, bulk or not, keeps them right in the same statement as its rows.
 */
export const listCounts = sqliteTable(
  'list_counts',
  {
    platformId: text('platform_id').notNull(),
    list: text('list').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.list] })],
);

/** What a sandbox fault rule matches: an operation (method and OpenAPI path template), optionally about one customer or account. */
export interface FaultMatch {
  method: string;
  path: string;
  customerId?: string;
  accountId?: string;
}

/** What a sandbox fault rule does to a request it fires on. */
export type FaultEffect =
  | { type: 'ERROR'; status: number; retryAfterSeconds?: number }
  | { type: 'LATENCY'; delayMs: number }
  | { type: 'AFTER_COMMIT'; status: number }
  | { type: 'DISCONNECT' };

/** A live rule as `platforms.sandbox_faults` carries it to the request runner (matching needs no read). */
export interface LiveFault {
  id: string;
  match: FaultMatch;
}

/**
 * Sandbox fault rules (POST /sandbox/faults): each request the rule matches counts an evaluation; a seeded draw
 * of (seed, evaluation number) below `probability` fires it while `remaining` > 0.
 */
export const sandboxFaults = sqliteTable(
  'sandbox_faults',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    match: text('match', { mode: 'json' }).$type<FaultMatch>().notNull(),
    effect: text('effect', { mode: 'json' }).$type<FaultEffect>().notNull(),
    times: integer('times').notNull(),
    remaining: integer('remaining').notNull(),
    firedCount: integer('fired_count').notNull().default(0),
    probability: real('probability').notNull(),
    seed: integer('seed').notNull(),
    evaluations: integer('evaluations').notNull().default(0),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('sandbox_faults_platform_idx').on(t.platformId, t.createdAt, t.id)],
);

/** The recent firings of each fault rule (the newest few per rule are kept). */
export const sandboxFaultFirings = sqliteTable(
  'sandbox_fault_firings',
  {
    faultId: text('fault_id').notNull(),
    platformId: text('platform_id').notNull(),
    at: integer('at').notNull(),
    /** The rule's evaluation number that fired: orders firings of one rule and keys them. */
    evaluation: integer('evaluation').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    requestId: text('request_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.faultId, t.evaluation] })],
);

export type SandboxFaultRow = typeof sandboxFaults.$inferSelect;
export type SandboxFaultFiringRow = typeof sandboxFaultFirings.$inferSelect;

/**
 * Sandbox snapshots (POST /sandbox/snapshots): a captured copy of one platform's sandbox data. `hidden` ones
 * (a fixtures load's rollback point) are not listed and do not count toward the per-platform limit. `columns`
 * names each captured table's columns in the order its rows hold them, so a snapshot taken before a migration
 * restores by name after it.
 */
export const sandboxSnapshots = sqliteTable(
  'sandbox_snapshots',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    name: text('name').notNull(),
    hidden: integer('hidden', { mode: 'boolean' }).notNull().default(false),
    /** The platform's sandbox clock offset at capture. */
    clockOffsetMs: integer('clock_offset_ms').notNull(),
    columns: text('columns', { mode: 'json' }).$type<Record<string, string[]>>().notNull(),
    /** Rows per captured kind (API names: customers, walletCredentials…). */
    counts: text('counts', { mode: 'json' }).$type<Record<string, number>>().notNull(),
    rowCount: integer('row_count').notNull().default(0),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    index('sandbox_snapshots_platform_idx').on(t.platformId, t.hidden, t.id),
    // The sweep's search for rollback points a stopped fixtures load left behind.
    index('sandbox_snapshots_hidden_idx')
      .on(t.createdAt)
      .where(sql`${t.hidden} = 1`),
  ],
);

/** The captured rows of each snapshot: per table (`kind`), each row as a JSON array of arrays of its column values. */
export const sandboxSnapshotRows = sqliteTable(
  'sandbox_snapshot_rows',
  {
    snapshotId: text('snapshot_id').notNull(),
    kind: text('kind').notNull(),
    row: text('row').notNull(),
  },
  (t) => [index('sandbox_snapshot_rows_idx').on(t.snapshotId, t.kind)],
);

export type SandboxSnapshotRow = typeof sandboxSnapshots.$inferSelect;
