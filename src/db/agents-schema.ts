// The tables of agents: agents, their tokens and device codes, and their actions.
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { AgentActionStatus, AgentActionType, Permission } from './enums';
import type { AgentPolicy, AgentTransferDetails } from './json-shapes';

/** A software agent acting for one customer under a policy (experimental). Deletion is soft. */
export const agents = sqliteTable(
  'agents',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    customerId: text('customer_id').notNull(),
    name: text('name').notNull(),
    isPaused: integer('is_paused', { mode: 'boolean' }).notNull().default(false),
    isConnected: integer('is_connected', { mode: 'boolean' }).notNull().default(false),
    policy: text('policy', { mode: 'json' }).$type<AgentPolicy>().notNull(),
    deletedAt: integer('deleted_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('agents_platform_idx').on(t.platformId, t.id),
    index('agents_platform_live_idx')
      .on(t.platformId, t.id)
      .where(sql`deleted_at IS NULL`),
    // GET /agents filters, over live agents (a date range orders its page by that date, see `agentListLoads`).
    index('agents_platform_customer_idx')
      .on(t.platformId, t.customerId, t.id)
      .where(sql`deleted_at IS NULL`),
    index('agents_platform_paused_idx')
      .on(t.platformId, t.isPaused, t.id)
      .where(sql`deleted_at IS NULL`),
    index('agents_platform_connected_idx')
      .on(t.platformId, t.isConnected, t.id)
      .where(sql`deleted_at IS NULL`),
    index('agents_platform_created_idx')
      .on(t.platformId, t.createdAt, t.id)
      .where(sql`deleted_at IS NULL`),
    index('agents_platform_updated_idx')
      .on(t.platformId, t.updatedAt, t.id)
      .where(sql`deleted_at IS NULL`),
  ],
);

/** Device codes: short-lived, single use; stored only as a hash. */
export const agentDeviceCodes = sqliteTable(
  'agent_device_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    agentId: text('agent_id').notNull(),
    platformId: text('platform_id').notNull(),
    expiresAt: integer('expires_at').notNull(),
    redeemedAt: integer('redeemed_at'),
    /**
     * The permissions of the API token that issued the code: redeeming refuses an agent whose policy needs
     * more (codes older than the column carry none, so they redeem only for an agent without permissions).
     */
    issuerPermissions: text('issuer_permissions', { mode: 'json' }).$type<Permission[]>().notNull().default([]),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('agent_device_codes_agent_idx').on(t.agentId)],
);

/** Agent bearer tokens, stored only as hashes; revoked with the agent. */
export const agentTokens = sqliteTable(
  'agent_tokens',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id').notNull(),
    platformId: text('platform_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    revokedAt: integer('revoked_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('agent_tokens_hash_uq').on(t.tokenHash), index('agent_tokens_agent_idx').on(t.agentId)],
);

/**
 * Each money-moving request of an agent. `policyAmount` is its amount in the policy currency;
 * `counted` marks it as spent against the limits (approved and executed), per UTC `day` and `month`.
 */
export const agentActions = sqliteTable(
  'agent_actions',
  {
    id: text('id').primaryKey(),
    platformId: text('platform_id').notNull(),
    agentId: text('agent_id').notNull(),
    customerId: text('customer_id').notNull(),
    type: text('type').$type<AgentActionType>().notNull(),
    status: text('status').$type<AgentActionStatus>().notNull(),
    quoteId: text('quote_id'),
    transferDetails: text('transfer_details', { mode: 'json' }).$type<AgentTransferDetails>(),
    /** The request as submitted, replayed when the platform approves. */
    request: text('request', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    transactionId: text('transaction_id'),
    rejectionReason: text('rejection_reason'),
    failureReason: text('failure_reason'),
    policyAmount: integer('policy_amount').notNull(),
    counted: integer('counted', { mode: 'boolean' }).notNull().default(false),
    day: text('day').notNull(),
    month: text('month').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('agent_actions_agent_idx').on(t.agentId, t.id),
    // An agent's usage (and its limits' guards) read one month of its counted actions, whatever its history.
    index('agent_actions_usage_month_idx').on(t.agentId, t.counted, t.month, t.day),
    index('agent_actions_platform_status_idx').on(t.platformId, t.status, t.id),
    // A transaction's action (approving or rejecting a pending payment finds the agent's action by it).
    index('agent_actions_transaction_idx').on(t.transactionId),
    // An agent's actions by status; the approvals list (one status) by agent, customer or creation time.
    index('agent_actions_agent_status_idx').on(t.agentId, t.status, t.id),
    index('agent_actions_platform_status_agent_idx').on(t.platformId, t.status, t.agentId, t.id),
    index('agent_actions_platform_status_customer_idx').on(t.platformId, t.status, t.customerId, t.id),
    index('agent_actions_platform_status_created_idx').on(t.platformId, t.status, t.createdAt, t.id),
  ],
);

export type AgentRow = typeof agents.$inferSelect;
export type AgentActionRow = typeof agentActions.$inferSelect;
