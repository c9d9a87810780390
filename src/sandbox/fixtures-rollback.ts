// A fixture call all or nothing: a hidden snapshot before applying, restored if a step fails.
import type { Ctx } from '../http/route';
import { deleteSnapshot, restoreSnapshot, takeSnapshot } from './snapshots-service';

/**
 * Runs `apply` after taking a hidden snapshot of the platform; if `apply` throws, restores the snapshot (every
 * kind of sandbox data the platform has, so changes other requests made during the call are undone too, but
 * never a revocation: `restoreSnapshot` keeps those) and throws the step's error. The snapshot is deleted either way.
 */
export async function withRollback<T>(c: Ctx<'basic'>, apply: () => Promise<T>): Promise<T> {
  const platformId = c.auth.platform.id;
  const deps = { db: c.db, env: c.env, now: c.now };
  const snapshot = await takeSnapshot(deps, platformId, 'fixtures rollback point', { hidden: true });
  try {
    return await apply();
  } catch (error) {
    await restoreSnapshot(deps, platformId, snapshot.id);
    throw error;
  } finally {
    await deleteSnapshot(deps, platformId, snapshot.id);
  }
}
