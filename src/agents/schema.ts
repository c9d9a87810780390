// The request and response schemas of agents, their device codes, policies and actions.
import * as z from 'zod';
import { AgentActionStatus, AgentActionType } from '../db/enums';
import {
  AgentAccountRestrictions,
  AgentApprovalThresholds,
  AgentExecutionMode,
  AgentPermission,
  AgentPolicy,
  AgentSpendingLimits,
  AgentTransferDetails,
} from '../db/json-shapes';
import { DateTime, DateTimeParam } from '../common/time';
import { BooleanParam } from '../common/fields';
import { cursorParam, limitParam, pageOf, sortOrderParam } from '../http/pagination';
import type { Permission } from '../db/schema';
import { Quote, Transaction } from '../payments/schema';

// The stored shape of an agent's policy lives in db/ (a JSON column); the areas take it from here.
export { AgentPolicy };

/**
 * The API-token permission whose power each agent permission hands on: giving an agent a permission needs it
 * (an agent never gets a power its creator lacks). The TRANSACT ones are the agent's money permissions.
 */
export const AGENT_PERMISSION_NEEDS: Record<AgentPermission, Permission> = {
  VIEW_TRANSACTIONS: 'VIEW',
  CREATE_TRANSFERS: 'TRANSACT',
  CREATE_QUOTES: 'TRANSACT',
  EXECUTE_QUOTES: 'TRANSACT',
  MANAGE_EXTERNAL_ACCOUNTS: 'MANAGE',
};
export const MONEY_PERMISSIONS = AgentPermission.options.filter((p) => AGENT_PERMISSION_NEEDS[p] === 'TRANSACT');

const limits = AgentSpendingLimits.shape;

/** PATCH /agents/{id}/policy: provided fields replace, spending limits merge field by field. */
export const AgentPolicyUpdate = z
  .strictObject({
    permissions: z.array(AgentPermission).max(5).optional(),
    defaultExecutionMode: AgentExecutionMode.optional(),
    spendingLimits: z
      .strictObject({
        ...limits,
        currency: limits.currency.optional(),
        perTransactionLimit: limits.perTransactionLimit.optional(),
      })
      .optional(),
    accountRestrictions: AgentAccountRestrictions.optional(),
    approvalThresholds: AgentApprovalThresholds.optional(),
  })
  .meta({ id: 'AgentPolicyUpdateRequest' });
export type AgentPolicyUpdate = z.infer<typeof AgentPolicyUpdate>;

export const AgentUsage = z
  .object({
    dailyTransactionCount: z.int(),
    dailySpend: z.int(),
    dailyResetDate: z.iso.date(),
    monthlySpend: z.int(),
    monthlyResetMonth: z.string(),
  })
  .meta({ id: 'AgentUsage' });

export const Agent = z
  .object({
    id: z.string().meta({ example: 'Agent:019542f5-b3e7-1d02-0000-000000000001' }),
    name: z.string(),
    customerId: z.string(),
    isPaused: z.boolean(),
    isConnected: z.boolean(),
    policy: AgentPolicy,
    usage: AgentUsage,
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'Agent' });

export const AgentCreate = z
  .strictObject({ name: z.string().trim().min(1).max(255), customerId: z.string().min(1).max(128), policy: AgentPolicy })
  .meta({ id: 'AgentCreateRequest' });

export const AgentUpdate = z
  .strictObject({ name: z.string().trim().min(1).max(255).optional(), isPaused: z.boolean().optional() })
  .refine((u) => u.name !== undefined || u.isPaused !== undefined, { message: 'Provide name or isPaused' })
  .meta({ id: 'AgentUpdateRequest' });

export const AgentDeviceCode = z
  .object({ code: z.string(), agentId: z.string(), expiresAt: DateTime, redeemed: z.boolean() })
  .meta({ id: 'AgentDeviceCode' });

export const AgentCreateResponse = z.object({ agent: Agent, deviceCode: AgentDeviceCode }).meta({ id: 'AgentCreateResponse' });
export const DeviceCodeStatus = z.object({ code: z.string(), redeemed: z.boolean() }).meta({ id: 'AgentDeviceCodeStatusResponse' });
export const DeviceCodeRedeem = z
  .object({ agentId: z.string(), agentName: z.string(), accessToken: z.string(), policy: AgentPolicy })
  .meta({ id: 'AgentDeviceCodeRedeemResponse' });

export const AgentList = pageOf(Agent, 'AgentListResponse');
export const AgentListQuery = z.object({
  customerId: z.string().max(128).optional(),
  isPaused: BooleanParam.optional(),
  isConnected: BooleanParam.optional(),
  createdAfter: DateTimeParam,
  createdBefore: DateTimeParam,
  updatedAfter: DateTimeParam,
  updatedBefore: DateTimeParam,
  limit: limitParam,
  cursor: cursorParam,
});

export const AgentIdParams = z.object({ agentId: z.string() });
export const CodeParams = z.object({ code: z.string() });
export const ActionParams = z.object({ agentId: z.string(), actionId: z.string() });
export const ActionIdParams = z.object({ actionId: z.string() });

export const AgentAction = z
  .object({
    id: z.string().meta({ example: 'AgentAction:019542f5-b3e7-1d02-0000-000000000001' }),
    agentId: z.string(),
    customerId: z.string(),
    platformCustomerId: z.string(),
    status: AgentActionStatus,
    type: AgentActionType,
    quote: Quote.optional().meta({ description: 'EXECUTE_QUOTE only: the quote it executes' }),
    transferDetails: AgentTransferDetails.optional(),
    transaction: Transaction.optional().meta({ description: 'Once approved and execution has begun' }),
    rejectionReason: z.string().optional(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'AgentAction' });

export const AgentActionList = pageOf(AgentAction, 'AgentActionListResponse');
export const AgentActionListQuery = z.object({ status: AgentActionStatus.optional(), limit: limitParam, cursor: cursorParam });
export const ApprovalListQuery = z.object({
  agentId: z.string().max(128).optional(),
  customerId: z.string().max(128).optional(),
  startDate: DateTimeParam,
  endDate: DateTimeParam,
  sortOrder: sortOrderParam,
  limit: limitParam,
  cursor: cursorParam,
});
export const RejectRequest = z
  .strictObject({ reason: z.string().trim().min(1).max(1000).optional() })
  .optional()
  .meta({ id: 'AgentActionRejectRequest' });
