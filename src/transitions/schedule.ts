// Scheduled state changes: schedule, dispatch, and apply once when due (handlers come in).
import { and, asc, eq, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dueTransitions, platforms, type DueTransitionRow } from '../db/schema';
import { newId } from '../crypto/ids';
import type { Logger } from '../http/log';
import { sendMessages, type JobMessage } from '../http/change';
import { errorText, isCheckFailure } from '../db/errors';
import { type Statement } from '../db/client';
import { dispatchEvents, platformOffsetSql } from '../webhooks/outbox';
import { MAX_QUEUE_DELAY_SECONDS } from '../webhooks/delivery';
import type { Deps } from '../http/deps';

/** A delayed state change to schedule: a row due at `dueAt`, applied by a delayed queue message or the cron sweep. */
export interface TransitionInput {
  platformId: string;
  /** What changes: a transaction, quote or transfer id. */
  subjectId: string;
  /** Handler kind in the registry, e.g. `payment.step`. */
  kind: string;
  from?: string | null;
  to?: string | null;
  data?: Record<string, unknown> | null;
  /** Platform time at which it is due. */
  dueAt: number;
  /** Platform time now (`c.now`). */
  now: number;
}

/** A transition ready to join the caller's batch, and what to send after the batch commits. */
export interface ScheduledTransition {
  id: string;
  statement: Statement;
  /** Delay of its queue message: until due, at most the queue's 12 h limit (the sweep covers the rest). */
  delaySeconds: number;
}

/** The queue message that applies due transitions. */
export interface TransitionDueJob {
  type: 'transition.due';
  id: string;
}

/** The insert of a due transition; put `statement` in the same batch as the change that starts the wait. */
export function scheduleTransition(db: Db, t: TransitionInput): ScheduledTransition {
  const id = newId('Transition', t.now);
  const statement = db.insert(dueTransitions).values({
    id,
    platformId: t.platformId,
    subjectId: t.subjectId,
    kind: t.kind,
    fromStatus: t.from ?? null,
    toStatus: t.to ?? null,
    data: t.data ?? null,
    dueAt: t.dueAt,
    appliedAt: null,
    applications: 0,
    createdAt: t.now,
    sweepAt: sql`${t.dueAt} - ${platformOffsetSql(t.platformId)}`,
  });
  const delaySeconds = Math.min(Math.max(0, Math.ceil((t.dueAt - t.now) / 1000)), MAX_QUEUE_DELAY_SECONDS);
  return { id, statement, delaySeconds };
}

/** The delayed queue messages that apply transitions when due, to send once their batch commits. */
export const transitionMessages = (scheduled: Pick<ScheduledTransition, 'id' | 'delaySeconds'>[]): JobMessage[] =>
  scheduled.map((s) => ({
    body: { type: 'transition.due', id: s.id } satisfies TransitionDueJob,
    ...(s.delaySeconds > 0 ? { delaySeconds: s.delaySeconds } : {}),
  }));

/** After the batch commits: one delayed queue message per transition. Never throws (the sweep is the backstop). */
export async function dispatchTransitions(
  queue: Queue<unknown>,
  scheduled: Pick<ScheduledTransition, 'id' | 'delaySeconds'>[],
  log?: Logger,
): Promise<void> {
  await sendMessages(queue, transitionMessages(scheduled), log);
}

/** What a handler receives: the due row and the platform's time. */
export interface TransitionContext {
  db: Db;
  row: DueTransitionRow;
  /** The platform's time (wall clock plus its sandbox offset). */
  now: number;
}

/** What applying a transition does; `statements` run in one batch with the row's applied mark. */
export interface TransitionEffect {
  /** The state change, conditional on the subject still being in `row.fromStatus`, plus its events and money. */
  statements: Statement[];
  /** Events written by `statements` (via `eventStatements`), dispatched after the commit. */
  eventIds?: string[];
  /** Follow-up transitions (their statements join the batch). */
  transitions?: ScheduledTransition[];
}

export type TransitionHandler = (ctx: TransitionContext) => TransitionEffect | Promise<TransitionEffect>;

/** The handler of each transition kind: an explicit map, built next to the queue consumer (src/jobs/). */
export type TransitionHandlers = Readonly<Record<string, TransitionHandler>>;

export interface TransitionDeps extends Deps {
  transitions: TransitionHandlers;
}

interface ApplyScope {
  platformId?: string;
  id?: string;
}

interface ApplyResult {
  applied: number;
  /** Already applied by a concurrent caller. */
  skipped: number;
  failed: number;
}

const BATCH = 50;
const MAX_ROUNDS = 10;
/** Rounds of BATCH the cron sweep applies itself before it queues the rest. */
export const SWEEP_INLINE_ROUNDS = 2;
/** Due transitions the cron sweep queues per tick beyond those it applies (docs/engineering/performance.md: at least 1,000 a minute). */
export const SWEEP_QUEUED = 1_000;
/** A queued transition is not queued again by the sweep for this long (its message is on its way). */
const SWEEP_LEASE_MS = 2 * 60_000;

/**
 * Applies every transition due by its platform's own clock (wall clock `realNow` plus the platform's
 * sandbox offset), in due order. Each row is applied exactly once: its applied mark increments
 * `applications`, whose CHECK (at most 1) rolls back the whole batch of a second application, so a
 * duplicate message, the consumer and the sweep racing change nothing twice. A handler that fails
 * leaves its row due (retried by the next sweep) and holds back later rows of the same subject.
 * Unscoped (the sweep), rows are found by their wall-clock `sweepAt` (an index range of what is due),
 * `rounds` batches at most.
 */
export async function applyDueTransitions(
  deps: TransitionDeps,
  realNow: number,
  scope: ApplyScope = {},
  rounds = MAX_ROUNDS,
): Promise<ApplyResult> {
  const result: ApplyResult = { applied: 0, skipped: 0, failed: 0 };
  const failedSubjects = new Set<string>();
  const failedRows = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    const rows = (await dueRows(deps.db, realNow, scope)).filter((r) => !failedRows.has(r.row.id));
    if (rows.length === 0) break;
    for (const { row, offset } of rows) {
      if (failedSubjects.has(row.subjectId)) {
        failedRows.add(row.id);
        continue;
      }
      const outcome = await applyOne(deps, row, realNow + offset, realNow);
      if (outcome === 'failed') {
        failedSubjects.add(row.subjectId);
        failedRows.add(row.id);
      }
      result[outcome]++;
    }
  }
  return result;
}

async function dueRows(db: Db, realNow: number, scope: ApplyScope) {
  const scoped = scope.platformId !== undefined || scope.id !== undefined;
  return db
    .select({ row: dueTransitions, offset: platforms.clockOffsetMs })
    .from(dueTransitions)
    .innerJoin(platforms, eq(platforms.id, dueTransitions.platformId))
    .where(
      and(
        isNull(dueTransitions.appliedAt),
        // A platform being moved to another home changes nothing meanwhile: its transitions (rail instructions
        // among them) stay due and are applied in its new home once it is released.
        isNull(platforms.heldSince),
        // Due by the platform's clock decides; the sweep finds candidates by wall-clock `sweepAt` (its index).
        lte(dueTransitions.dueAt, sql`${realNow} + ${platforms.clockOffsetMs}`),
        scoped ? undefined : lte(dueTransitions.sweepAt, realNow),
        scope.platformId ? eq(dueTransitions.platformId, scope.platformId) : undefined,
        scope.id ? eq(dueTransitions.id, scope.id) : undefined,
      ),
    )
    .orderBy(...(scoped ? [asc(dueTransitions.dueAt), asc(dueTransitions.id)] : [asc(dueTransitions.sweepAt), asc(dueTransitions.id)]))
    .limit(BATCH);
}

/** Applied transitions are kept this long (wall clock) for inspection, then the sweep deletes them. */
export const APPLIED_RETENTION_MS = 7 * 24 * 60 * 60_000;

/**
 * Cron: deletes transitions applied more than APPLIED_RETENTION_MS ago, at most `batch`, through their
 * index (it reads what it deletes). Nothing reads an applied row: a late duplicate message finds nothing to apply.
 */
export async function purgeAppliedTransitions(db: Db, realNow: number, batch = 1_000): Promise<number> {
  const expired = db
    .select({ id: dueTransitions.id })
    .from(dueTransitions)
    .where(and(isNotNull(dueTransitions.appliedAt), lte(dueTransitions.sweepAt, realNow - APPLIED_RETENTION_MS)))
    .orderBy(asc(dueTransitions.sweepAt))
    .limit(batch);
  const deleted = await db.delete(dueTransitions).where(inArray(dueTransitions.id, expired)).returning({ id: dueTransitions.id });
  return deleted.length;
}

// Not leased while the platform is held for a move (dueRows skips it too): it is swept in its new home after.
const notHeld = sql`NOT EXISTS (SELECT 1 FROM ${platforms} WHERE ${platforms.id} = ${dueTransitions.platformId} AND ${platforms.heldSince} IS NOT NULL)`;

/**
 * Cron: applies up to SWEEP_INLINE_ROUNDS batches of what is due itself, then queues up to SWEEP_QUEUED more
 * (one `transition.due` message each, applied by the consumer with the usual exactly-once claim), leasing
 * them so the next tick does not queue them again. Reads only rows that are due.
 */
export async function sweepDueTransitions(deps: TransitionDeps, realNow: number): Promise<ApplyResult & { queued: number }> {
  const applied = await applyDueTransitions(deps, realNow, {}, SWEEP_INLINE_ROUNDS);
  const due = deps.db
    .select({ id: dueTransitions.id })
    .from(dueTransitions)
    .where(and(isNull(dueTransitions.appliedAt), lte(dueTransitions.sweepAt, realNow), notHeld))
    .orderBy(asc(dueTransitions.sweepAt))
    .limit(SWEEP_QUEUED);
  const leased = await deps.db
    .update(dueTransitions)
    .set({ sweepAt: realNow + SWEEP_LEASE_MS })
    .where(inArray(dueTransitions.id, due))
    .returning({ id: dueTransitions.id });
  await dispatchTransitions(
    deps.queue,
    leased.map(({ id }) => ({ id, delaySeconds: 0 })),
    deps.log,
  );
  return { ...applied, queued: leased.length };
}

async function applyOne(
  deps: TransitionDeps,
  row: DueTransitionRow,
  now: number,
  realNow: number,
): Promise<'applied' | 'skipped' | 'failed'> {
  const handler = Object.hasOwn(deps.transitions, row.kind) ? deps.transitions[row.kind] : undefined;
  if (!handler) {
    deps.log.error('no handler for transition kind', { kind: row.kind, id: row.id });
    return 'failed';
  }
  try {
    const effect = await handler({ db: deps.db, row, now });
    const follow = effect.transitions ?? [];
    const mark = deps.db
      .update(dueTransitions)
      // Applied: `sweepAt` now says when (wall clock), for the purge of applied rows.
      .set({ appliedAt: now, applications: sql`${dueTransitions.applications} + 1`, sweepAt: realNow })
      .where(eq(dueTransitions.id, row.id));
    await deps.db.batch([mark, ...effect.statements, ...follow.map((t) => t.statement)]);
    await dispatchEvents(deps.queue, effect.eventIds ?? [], deps.log);
    await dispatchTransitions(deps.queue, follow, deps.log);
    return 'applied';
  } catch (error) {
    if (isCheckFailure(errorText(error), 'due_transitions_applied_once')) return 'skipped';
    deps.log.error('transition failed; it stays due', { kind: row.kind, id: row.id, error: errorText(error) });
    return 'failed';
  }
}
