import type { RouteDef } from '../http/route';
import { agentRoutes } from './agent-routes';
import { agentMeRoutes } from './me-routes';
import { agentActionRoutes, agentApprovalRoutes } from './action-routes';

/** Agents: the platform's side, the agent's own surface (/agents/me), their actions and approvals. */
export const agentsRoutes: RouteDef[] = [...agentRoutes, ...agentMeRoutes, ...agentActionRoutes, ...agentApprovalRoutes];
