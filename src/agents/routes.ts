// Every agent route: the platform's side (tag Agent Management) and the agent's own (tag Agent Operations).
import type { RouteDef } from '../http/route';
import { agentManagementRoutes } from './management-routes';
import { agentMeRoutes } from './me-routes';

/** Agents: the platform's side (agents, device codes, approvals of their actions) and the agent's own surface (/agents/me). */
export const agentsRoutes: RouteDef[] = [...agentManagementRoutes, ...agentMeRoutes];
