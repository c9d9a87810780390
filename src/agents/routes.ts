// Every agent route, one list per tag: management, the agent's own surface, actions and approvals.
import type { RouteDef } from '../http/route';
import { agentRoutes } from './agent-routes';
import { agentMeRoutes } from './me-routes';
import { agentActionRoutes, agentApprovalRoutes } from './action-routes';
import { transactionApprovalRoutes } from './transaction-approval-routes';

/** Agents: the platform's side, the agent's own surface (/agents/me), their actions and approvals. */
export const agentsRoutes: RouteDef[] = [
  ...agentRoutes,
  ...agentMeRoutes,
  ...agentActionRoutes,
  ...agentApprovalRoutes,
  ...transactionApprovalRoutes,
];
