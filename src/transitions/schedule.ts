import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { dueTransitions, platforms, type DueTransitionRow } from '../db/schema';
import { newId } from '../crypto/ids';
import type { Logger } from '../http/log';
import { errorText } from '../db/errors';
import { type Statement } from '../db/client';
import { dispatchEvents } from '../webhooks/outbox';
import { MAX_QUEUE_DELAY_SECONDS } from '../webhooks/delivery';
import type { Deps } from '../http/deps';

/** A delayed state change to schedule (DESIGN.md 4). */
export interface TransitionInput {
  platformId: string;
  /** What changes: a transaction, quote or transfer id. */
  subjectId: string;
  /** Handler kind in the registry, e.g. `transfer.fail`. */
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
  });
  const delaySeconds = Math.min(Math.max(0, Math.ceil((t.dueAt - t.now) / 1000)), MAX_QUEUE_DELAY_SECONDS);
  return { id, statement, delaySeconds };
}

/** After the batch commits: one delayed queue message per transition. Never throws (the sweep is the backstop). */
export async function dispatchTransitions(queue: Queue<unknown>, scheduled: ScheduledTransition[], log?: Logger): Promise<void> {
  for (let i = 0; i < scheduled.length; i += 100) {
    const messages = scheduled.slice(i, i + 100).map((s) => ({
      body: { type: 'transition.due', id: s.id } satisfies TransitionDueJob,
      ...(s.delaySeconds > 0 ? { delaySeconds: s.delaySeconds } : {}),
    }));
    try {
      await queue.sendBatch(messages);
    } catch (error) {
      log?.warn('transition dispatch failed; the sweep will apply it', { count: messages.length, error: String(error) });
    }
  }
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

export interface ApplyScope {
  platformId?: string;
  id?: string;
}

export interface ApplyResult {
  applied: number;
  /** Already applied by a concurrent caller. */
  skipped: number;
  failed: number;
}

const BATCH = 50;
const MAX_ROUNDS = 10;

/**
 * Applies every transition due by its platform's own clock (wall clock `realNow` plus the platform's
 * sandbox offset), in due order. Each row is applied exactly once: its applied mark increments
 * `applications`, whose CHECK (at most 1) rolls back the whole batch of a second application, so a
 * duplicate message, the consumer and the sweep racing change nothing twice. A handler that fails
 * leaves its row due (retried by the next sweep) and holds back later rows of the same subject.
 */
export async function applyDueTransitions(deps: TransitionDeps, realNow: number, scope: ApplyScope = {}): Promise<ApplyResult> {
  const result: ApplyResult = { applied: 0, skipped: 0, failed: 0 };
  const failedSubjects = new Set<string>();
  const failedRows = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const rows = (await dueRows(deps.db, realNow, scope)).filter((r) => !failedRows.has(r.row.id));
    if (rows.length === 0) break;
    for (const { row, offset } of rows) {
      if (failedSubjects.has(row.subjectId)) {
        failedRows.add(row.id);
        continue;
      }
      const outcome = await applyOne(deps, row, realNow + offset);
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
  return db
    .select({ row: dueTransitions, offset: platforms.clockOffsetMs })
    .from(dueTransitions)
    .innerJoin(platforms, eq(platforms.id, dueTransitions.platformId))
    .where(
      and(
        isNull(dueTransitions.appliedAt),
        lte(dueTransitions.dueAt, sql`${realNow} + ${platforms.clockOffsetMs}`),
        scope.platformId ? eq(dueTransitions.platformId, scope.platformId) : undefined,
        scope.id ? eq(dueTransitions.id, scope.id) : undefined,
      ),
    )
    .orderBy(asc(dueTransitions.dueAt), asc(dueTransitions.id))
    .limit(BATCH);
}

async function applyOne(deps: TransitionDeps, row: DueTransitionRow, now: number): Promise<'applied' | 'skipped' | 'failed'> {
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
      .set({ appliedAt: now, applications: sql`${dueTransitions.applications} + 1` })
      .where(eq(dueTransitions.id, row.id));
    await deps.db.batch([mark, ...effect.statements, ...follow.map((t) => t.statement)]);
    await dispatchEvents(deps.queue, effect.eventIds ?? [], deps.log);
    await dispatchTransitions(deps.queue, follow, deps.log);
    return 'applied';
  } catch (error) {
    if (errorText(error).includes('due_transitions_applied_once')) return 'skipped';
    deps.log.error('transition failed; it stays due', { kind: row.kind, id: row.id, error: errorText(error) });
    return 'failed';
  }
}
