// The Change: what a money service prepares and the route commits: one D1 batch, its answer, and the queue
// messages that follow it. Services return one; `commitChange` runs it (the route's runner adds the
// Idempotency-Key's record to the same batch).
import { sql } from 'drizzle-orm';
import { namedGuard, type Db, type Statement } from '../db/client';
import { errorText, isBalanceCheckFailure, isNamedGuardFailure, isUniqueViolation } from '../db/errors';
import type { Logger } from './log';
import type * as z from 'zod';
import { ApiError, retryableConflict, type ErrorBody as ErrorBodySchema } from './errors';
import { json } from './responses';

/** A queue message, as `Queue.sendBatch` takes it. */
export type JobMessage = MessageSendRequest<unknown>;

export interface Change<T = unknown> {
  /** The batch: all of it commits, or none of it. */
  statements: Statement[];
  /** Sent once the batch commits (webhook deliveries, due transitions); the cron sweep sends any that are lost. */
  messages: JobMessage[];
  /** The answer once it commits. */
  status: number;
  body: T;
  /** The batch's named guards (`namedGuard`), and the error each answers with when it fails. */
  refusals?: Record<string, ApiError>;
  /** Answered when a concurrent change of the same record committed first (a unique key taken meanwhile). */
  conflict?: ApiError;
  /**
   * When a debit would overdraw: the change committed instead (a failed execution; or a part of this one,
   * answering an error), or the error answered with nothing committed.
   */
  shortfall?: Change<T> | Change<ErrorBody> | ApiError;
}

/** The tables whose unique keys make one of two concurrent changes of a record lose (postings). */
const RACE_TABLES = ['ledger_movements'];

const CHANGED_MEANWHILE = 'CHANGED_MEANWHILE';

/**
 * Put right after an update conditional on the version read: it fails the batch when that update changed
 * nothing (a concurrent change committed first), which `commitChange` answers as a lost race.
 */
export const unchangedSince = (db: Db): Statement => namedGuard(db, CHANGED_MEANWHILE, sql`changes() > 0`);

/**
 * Commits `change` in one batch, with `extra(change)` appended (the Idempotency-Key's record of its answer),
 * then sends its messages. Returns the change that committed: `change`, or its `shortfall` change. A refused
 * guard, a lost race or a shortfall without a fallback throws the change's error; nothing of it happened.
 */
export async function commitChange<T>(
  deps: { db: Db; queue: Queue<unknown>; log?: Logger },
  change: Change<T>,
  extra: (committing: Change<unknown>) => Statement[] = () => [],
): Promise<Change<T> | Change<ErrorBody>> {
  let committing: Change<T> | Change<ErrorBody> = change;
  for (;;) {
    try {
      const statements = [...committing.statements, ...extra(committing)];
      await deps.db.batch(statements as [Statement, ...Statement[]]);
      break;
    } catch (error) {
      const text = errorText(error);
      const shortfall: Change<T> | Change<ErrorBody> | ApiError | undefined = committing.shortfall;
      if (isBalanceCheckFailure(text) && shortfall) {
        if (shortfall instanceof ApiError) throw shortfall;
        committing = shortfall;
        continue;
      }
      for (const [name, refusal] of Object.entries(committing.refusals ?? {})) if (isNamedGuardFailure(text, name)) throw refusal;
      if (isNamedGuardFailure(text, CHANGED_MEANWHILE) || RACE_TABLES.some((table) => isUniqueViolation(text, table)))
        throw committing.conflict ?? retryableConflict('Changed concurrently; retry');
      throw error;
    }
  }
  await sendMessages(deps.queue, committing.messages, deps.log);
  return committing;
}

/** A handler's result as its response: a Change committed (its answer), a Response as it is. */
export async function committed(deps: { db: Db; queue: Queue<unknown>; log?: Logger }, result: Response | Change): Promise<Response> {
  if (!isChange(result)) return result;
  const done = await commitChange(deps, result);
  return json(done.body, done.status);
}

/** Sends messages in batches of 100 (the queue's limit). Never throws: the cron sweep is the backstop. */
export async function sendMessages(queue: Queue<unknown>, messages: JobMessage[], log?: Logger): Promise<void> {
  for (let i = 0; i < messages.length; i += 100) {
    const batch = messages.slice(i, i + 100);
    try {
      await queue.sendBatch(batch);
    } catch (error) {
      log?.warn('queue dispatch failed; the sweep will pick it up', { count: batch.length, error: String(error) });
    }
  }
}

/**
 * `change` answering `f(body)` with `status` instead (a shortfall change that answers in kind too). A change
 * that answers an error (a status of 400 or more, the error's body: a late decision that still commits)
 * keeps its answer.
 */
export function answering<T, U>(change: Change<T>, status: number, f: (body: T) => U): Change<U> {
  if (change.status >= 400) return change as unknown as Change<U>;
  const { shortfall } = change;
  const inKind = shortfall && !(shortfall instanceof ApiError) && shortfall.status < 400;
  return {
    ...change,
    status,
    body: f(change.body),
    shortfall: inKind ? answering(shortfall as Change<T>, status, f) : (shortfall as Change<ErrorBody> | ApiError | undefined),
  };
}

/** The spec's error body, as a change answers it. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** Whether a handler's result is a Change (else a Response). */
export const isChange = (value: unknown): value is Change => typeof value === 'object' && value !== null && 'statements' in value;
