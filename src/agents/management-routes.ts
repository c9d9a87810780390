// The platform's side of agents, tag Agent Management: agents, their policies and device codes, and the
// approvals of their pending actions.
import { homeOfSecret } from '../db/homes';
import { hashSecret } from '../crypto/secrets';
import { defineRoute, json, noContent } from '../http/route';
import { errorResponses } from '../http/responses';
import { errorSchema } from '../http/errors';
import { answering } from '../http/change';
import { paymentDeps } from '../payments/transaction-change';
import { ratesUnavailableResponse } from '../payments/rates-schema';
import {
  ActionParams,
  AgentAction,
  AgentActionList,
  ApprovalListQuery,
  RejectRequest,
  AgentCreate,
  AgentCreateResponse,
  Agent,
  AgentDeviceCode,
  AgentIdParams,
  AgentList,
  AgentListQuery,
  AgentPolicyUpdate,
  AgentUpdate,
  CodeParams,
  DeviceCodeRedeem,
  DeviceCodeStatus,
} from './schema';
import {
  createAgent,
  deleteAgent,
  agentFrom,
  agentListFrom,
  agentListLoads,
  agentLoads,
  issueDeviceCode,
  updateAgent,
  updatePolicy,
} from './service';
import { approveAction, pendingActionLoads, rejectAction } from './actions-service';
import { approvalListFrom, approvalListLoads } from './action-views';
import { deviceCodeLoads, deviceCodeStatusFrom, redeemDeviceCode } from './device-codes';

const tag = 'Agent Management';
const MISSING_PERMISSIONS =
  'The token lacks MANAGE, or a power the agent would get (details.missingPermissions): money permissions, AUTO and looser limits need TRANSACT, VIEW_TRANSACTIONS needs VIEW';

/** Platform-side agent management (HTTP Basic). */
export const agentManagementRoutes = [
  defineRoute({
    method: 'POST',
    path: '/agents',
    operationId: 'createAgent',
    summary: 'Create an agent for one customer, with its policy and a first device code',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: AgentCreate,
    responses: {
      201: { description: 'Created', schema: AgentCreateResponse },
      ...errorResponses(400, 401, 404, 413),
      403: { description: MISSING_PERMISSIONS, schema: errorSchema(403) },
    },
    handler: async (c) => json(await createAgent(c.db, c.home, c.auth.platform, c.auth.permissions, c.body, c.now), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents',
    operationId: 'listAgents',
    summary: 'List agents',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    query: AgentListQuery,
    responses: { 200: { description: 'A page of agents', schema: AgentList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query, now }) => agentListLoads(db, platformId, query, now),
    handler: (c) => json(agentListFrom(c.query, c.loaded, c.now)),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/device-codes/:code/status',
    operationId: 'getAgentDeviceCodeStatus',
    summary: 'Whether a device code has been redeemed',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: CodeParams,
    secretParams: ['code'],
    responses: { 200: { description: 'Status', schema: DeviceCodeStatus }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params }) => deviceCodeLoads(db, platformId, params.code),
    handler: (c) => json(deviceCodeStatusFrom(c.params.code, c.loaded)),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/device-codes/:code/redeem',
    operationId: 'redeemAgentDeviceCode',
    summary: "Redeem a device code (the agent software, no platform credentials): returns the agent's bearer token once",
    tag: 'Agent Operations',
    auth: 'none',
    params: CodeParams,
    secretParams: ['code'],
    responses: {
      200: { description: 'The access token', schema: DeviceCodeRedeem },
      ...errorResponses(400, 404),
      403: {
        description: "The code's issuer lacks a permission the agent's policy now needs (details.missingPermissions)",
        schema: errorSchema(403),
      },
    },
    // The code names its platform's home.
    home: ({ params }, env) => homeOfSecret(env, params.code, `device:${hashSecret(params.code.toUpperCase())}`),
    handler: async (c) => json(await redeemDeviceCode(c.db, c.home, c.params.code, Date.now())),
  }),
  defineRoute({
    method: 'GET',
    path: '/agents/:agentId',
    operationId: 'getAgentById',
    summary: 'Get an agent with its usage',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    params: AgentIdParams,
    responses: { 200: { description: 'The agent', schema: Agent }, ...errorResponses(401, 403, 404) },
    load: ({ db, platformId, params, now }) => agentLoads(db, platformId, params.agentId, now),
    handler: (c) => json(agentFrom(c.loaded, c.now)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/agents/:agentId',
    operationId: 'updateAgent',
    summary: 'Rename, pause or resume an agent',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: AgentIdParams,
    body: AgentUpdate,
    responses: { 200: { description: 'The agent', schema: Agent }, ...errorResponses(400, 401, 403, 404) },
    handler: async (c) => json(await updateAgent(c.db, c.auth.platform.id, c.params.agentId, c.body, c.now)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/agents/:agentId',
    revokes: true,
    operationId: 'deleteAgent',
    summary: 'Delete an agent; its tokens stop working at once',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: AgentIdParams,
    responses: { 204: { description: 'Deleted' }, ...errorResponses(401, 403, 404) },
    handler: async (c) => {
      await deleteAgent(c.db, c.auth.platform.id, c.params.agentId, c.now);
      return noContent();
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/agents/:agentId/policy',
    operationId: 'updateAgentPolicy',
    summary: "Update an agent's policy (given fields replace; spending limits merge)",
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: AgentIdParams,
    body: AgentPolicyUpdate,
    responses: {
      200: { description: 'The agent', schema: Agent },
      ...errorResponses(400, 401, 404, 409),
      403: { description: MISSING_PERMISSIONS, schema: errorSchema(403) },
    },
    handler: async (c) => json(await updatePolicy(c.db, c.auth.platform.id, c.params.agentId, c.auth.permissions, c.body, c.now)),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/:agentId/device-codes',
    operationId: 'regenerateAgentDeviceCode',
    summary: 'Issue a new device code (earlier unredeemed codes stop working)',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    params: AgentIdParams,
    responses: {
      201: { description: 'The code', schema: AgentDeviceCode },
      ...errorResponses(401, 404),
      403: { description: MISSING_PERMISSIONS, schema: errorSchema(403) },
    },
    handler: async (c) => json(await issueDeviceCode(c.db, c.home, c.auth.platform.id, c.params.agentId, c.auth.permissions, c.now), 201),
  }),

  defineRoute({
    method: 'GET',
    path: '/agents/approvals',
    operationId: 'listAgentApprovals',
    summary: 'Agent actions waiting for the platform',
    tag: 'Agent Management',
    auth: 'basic',
    permission: 'VIEW',
    query: ApprovalListQuery,
    responses: { 200: { description: 'A page of actions', schema: AgentActionList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => approvalListLoads(db, platformId, query),
    handler: (c) => json(approvalListFrom(c.query, c.loaded)),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/:agentId/actions/:actionId/approve',
    operationId: 'approveAgentAction',
    summary: 'Approve a pending action: policy and limits are checked again, then it executes',
    tag: 'Agent Management',
    auth: 'basic',
    permission: 'TRANSACT',
    params: ActionParams,
    responses: {
      200: { description: 'The action, APPROVED or FAILED', schema: AgentAction },
      ...errorResponses(401, 403, 404, 409),
      ...ratesUnavailableResponse,
    },
    // The action, its agent and transaction ride on authentication; then its accounts, then one batch.
    load: ({ db, params, platformId }) => pendingActionLoads(db, platformId, params),
    handler: async (c) => answering(await approveAction(paymentDeps(c), c.auth.platform, c.loaded, c.now), 200, (d) => d.view),
  }),
  defineRoute({
    method: 'POST',
    path: '/agents/:agentId/actions/:actionId/reject',
    operationId: 'rejectAgentAction',
    summary: 'Reject a pending action (optional reason); its transaction never executes',
    tag: 'Agent Management',
    auth: 'basic',
    permission: 'TRANSACT',
    params: ActionParams,
    body: RejectRequest,
    responses: { 200: { description: 'The action, REJECTED', schema: AgentAction }, ...errorResponses(400, 401, 403, 404, 409) },
    load: ({ db, params, platformId }) => pendingActionLoads(db, platformId, params),
    handler: async (c) => answering(await rejectAction(paymentDeps(c), c.loaded, c.body?.reason, c.now), 200, (d) => d.view),
  }),
];
