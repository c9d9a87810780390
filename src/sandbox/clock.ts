import { eq, sql, type SQL } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import { platforms } from '../db/schema';
import { iso } from '../common/time';
import type { JobDeps } from '../jobs/deps';
import { applyDueTransitions } from '../transitions/schedule';
import { dueDeliveryEventIds } from '../webhooks/delivery';
import { dispatchEvents } from '../webhooks/outbox';
import type { SandboxTime } from './clock-schema';

/**
 * Moving a platform's sandbox clock forward, as a load of the authentication batch (`platformId` SQL: see
 * `RouteSpec.load`; nothing moves for a refused request); `advanceClock` then applies what is due.
 */
export function clockLoads(db: Db, platformId: SQL, seconds: number) {
  return {
    clock: db
      .update(platforms)
      .set({ clockOffsetMs: sql`${platforms.clockOffsetMs} + ${seconds * 1000}` })
      .where(eq(platforms.id, platformId))
      .returning({ offset: platforms.clockOffsetMs }),
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
