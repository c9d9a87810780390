// The transitions of a transaction's life: its sandbox plan's due steps and its quote's expiry.
import type { ServiceMode } from '../env';
import type { TransitionContext, TransitionEffect, TransitionHandler } from '../transitions/schedule';
import { loadTransaction } from './transactions-service';
import { buildChange, dueStep, EXPIRE_TRANSITION, STEP_TRANSITION } from './transaction-change';

const nothing: TransitionEffect = { statements: [] };

async function subject(ctx: TransitionContext) {
  return loadTransaction(ctx.db, ctx.row.platformId, ctx.row.subjectId).catch(() => null);
}

/**
 * A due step of a transaction's sandbox plan (src/payments/sandbox-rail.ts). It applies only if the
 * transaction is still where the step was scheduled from; its change is conditional on the version read,
 * so a concurrent change makes the batch fail and the row stay due (the next sweep finds it moved on).
 */
const applyStep: TransitionHandler = async (ctx) => {
  const tx = await subject(ctx);
  const data = ctx.row.data as { scenario?: string; index?: number; mode?: ServiceMode } | null;
  if (!tx || tx.status !== ctx.row.fromStatus || tx.scenario !== data?.scenario || typeof data.index !== 'number') return nothing;
  const mode = data.mode ?? 'sandbox';
  const step = dueStep(ctx.db, tx, data.index, ctx.now, mode);
  // The follow-up transition's statement joins the batch through `transitions` (applyDueTransitions adds it).
  const change = await buildChange(ctx.db, tx, step.hops, { now: ctx.now, mode });
  return { statements: change.statements, eventIds: change.eventIds, transitions: step.transitions };
};

/** A quote's expiry: its transaction, still PENDING (awaiting approval or not), ends EXPIRED with QUOTE_EXPIRED. */
const expireQuote: TransitionHandler = async (ctx) => {
  const tx = await subject(ctx);
  if (!tx || tx.status !== 'PENDING') return nothing;
  // No money moves, so the mode (which only shapes balance events) does not matter here.
  const change = await buildChange(ctx.db, tx, [{ status: 'EXPIRED', set: { failureReason: 'QUOTE_EXPIRED' } }], {
    now: ctx.now,
    mode: 'sandbox',
  });
  return { statements: change.statements, eventIds: change.eventIds };
};

/** The transitions of a transaction's life: its sandbox plan's steps and its quote's expiry. */
export const paymentTransitions = { [STEP_TRANSITION]: applyStep, [EXPIRE_TRANSITION]: expireQuote };
