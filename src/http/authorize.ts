// The runner's permission stage: what the authenticated caller may do on the route, refused before anything is done.
import type { Db } from '../db/client';
import type { AgentRow, Permission } from '../db/schema';
import type { Principals } from './auth';
import { forbidden, platformMoving, type ApiError } from './errors';
import { releaseClaim, type HeldKey } from './idempotency';

type AgentPermissionName = AgentRow['policy']['permissions'][number];

/** What the stage needs of a route. */
interface GuardedRoute {
  method: string;
  permission?: Permission;
  agentPermission?: AgentPermissionName | readonly AgentPermissionName[];
  acting?: boolean;
}

/**
 * 403 for an API token without the route's permission, an agent whose policy grants none of the route's, or a
 * paused agent on a route where it acts. A key claimed with authentication is given back first: the refusal is not the key's answer, so the same key
 * acts once the permission is granted.
 */
export async function authorize(route: GuardedRoute, auth: Principals[keyof Principals], db: Db, held: HeldKey | undefined): Promise<void> {
  const refusal = refusalOf(route, auth);
  if (!refusal) return;
  await releaseClaim(db, held);
  throw refusal;
}

function refusalOf(route: GuardedRoute, auth: Principals[keyof Principals]): ApiError | undefined {
  if (route.permission && auth && 'permissions' in auth && !auth.permissions.includes(route.permission)) {
    return forbidden(`This API token lacks the ${route.permission} permission`);
  }
  // A platform the operator is moving to another home: its writes wait (platform/move.ts); its reads go on.
  if (auth && 'platform' in auth && auth.platform.heldSince !== null && route.method !== 'GET') return platformMoving();
  if (!auth || !('agent' in auth)) return undefined;
  const anyOf = route.agentPermission && [route.agentPermission].flat();
  if (anyOf && !anyOf.some((p) => auth.agent.policy.permissions.includes(p))) {
    return forbidden(`The agent's policy does not grant ${anyOf.join(' or ')}`);
  }
  if (route.acting && auth.agent.isPaused) return forbidden('The agent is paused');
  return undefined;
}
