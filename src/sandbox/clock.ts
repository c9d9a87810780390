import { eq, sql } from 'drizzle-orm';
import { platforms } from '../db/schema';
import { iso } from '../common/time';
import type { JobDeps } from '../jobs/deps';
import { applyDueTransitions } from '../transitions/schedule';
import { dueDeliveryEventIds } from '../webhooks/delivery';
import { dispatchEvents } from '../webhooks/outbox';

/**
 * Moves one platform's sandbox clock forward, then applies its transitions that are now due (so a
 * 6-minute outcome shows at once) and queues its webhook retries that are now due.
 * `realNow` is wall-clock ms, without any offset.
 */
export async function advanceClock(deps: JobDeps, platformId: string, seconds: number, realNow: number) {
  const [row] = await deps.db
    .update(platforms)
    .set({ clockOffsetMs: sql`${platforms.clockOffsetMs} + ${seconds * 1000}` })
    .where(eq(platforms.id, platformId))
    .returning({ offset: platforms.clockOffsetMs });
  const offset = row!.offset;
  const { applied } = await applyDueTransitions(deps, realNow, { platformId });
  await dispatchEvents(deps.queue, await dueDeliveryEventIds(deps.db, realNow, { platformId, limit: 100 }), deps.log);
  return { sandboxTime: iso(realNow + offset), clockOffsetSeconds: Math.floor(offset / 1000), appliedTransitions: applied };
}
