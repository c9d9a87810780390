// Advancing a platform's sandbox clock, and applying what then comes due.
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import { dueTransitions, platforms, webhookDeliveries } from '../db/schema';
import { iso } from '../common/time';
import type { JobDeps } from '../jobs/deps';
import { applyDueTransitions } from '../transitions/schedule';
import { dueDeliveryEventIds } from '../webhooks/sweep';
import { dispatchEvents } from '../webhooks/outbox';
import type { SandboxTime } from './clock-schema';

/**
 * Moving a platform's sandbox clock forward, as a load of the authentication batch (`platformId` SQL: see
 * `RouteSpec.load`; nothing moves for a refused request); `advanceClock` then applies what is due. The
 * platform's pending transitions and deliveries come due that much earlier in wall-clock time: their
 * `sweepAt` moves with the clock in the same batch (a bounded update: that platform's pending rows).
 */
export function clockLoads(db: Db, platformId: SQL, seconds: number) {
  const ms = seconds * 1000;
  return {
    clock: db
      .update(platforms)
      .set({ clockOffsetMs: sql`${platforms.clockOffsetMs} + ${ms}` })
      .where(eq(platforms.id, platformId))
      .returning({ offset: platforms.clockOffsetMs }),
    transitions: db
      .update(dueTransitions)
      .set({ sweepAt: sql`${dueTransitions.sweepAt} - ${ms}` })
      .where(and(eq(dueTransitions.platformId, platformId), isNull(dueTransitions.appliedAt))),
    deliveries: db
      .update(webhookDeliveries)
      .set({ sweepAt: sql`${webhookDeliveries.sweepAt} - ${ms}` })
      .where(and(eq(webhookDeliveries.platformId, platformId), eq(webhookDeliveries.status, 'PENDING'))),
  };
}

/**
 * After `clockLoads` moved one platform's sandbox clock forward: applies its transitions that are now due
 * (so a 6-minute outcome shows at once) and queues its webhook retries that are now due.
 * `realNow` is wall-clock ms, without any offset.
 */
export async function advanceClock(deps: JobDeps, platformId: string, loaded: Loaded<ReturnType<typeof clockLoads>>, realNow: number) {
  const offset = loaded.clock[0]!.offset;
  const { applied } = await applyDueTransitions(deps, realNow, { platformId });
  await dispatchEvents(deps.queue, await dueDeliveryEventIds(deps.db, realNow, { platformId, limit: 100 }), deps.log);
  return { ...sandboxTime(realNow, offset), appliedTransitions: applied };
}

/** A platform's sandbox clock as the API shows it, from the wall clock (`realNow`, ms) and the platform's offset (ms). */
export function sandboxTime(realNow: number, offsetMs: number): SandboxTime {
  return { sandboxTime: iso(realNow + offsetMs), clockOffsetSeconds: Math.floor(offsetMs / 1000) };
}
