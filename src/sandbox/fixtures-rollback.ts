// A fixture call all or nothing: a hidden snapshot before applying, restored if a step fails.
import type { Ctx } from '../http/route';

/**
 * Runs `apply`; if it throws, the platform returns to where it was before (see README "Fixtures").
 * Interim: no snapshot yet (the snapshots service lands on branch `snapshots`), so a failure is not undone.
 */
export async function withRollback<T>(_c: Ctx<'basic'>, apply: () => Promise<T>): Promise<T> {
  return apply();
}
