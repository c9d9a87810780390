// Agents for the platform: create, read, list, update, policy, delete, issue a device code, and the checks of
// an agent's accounts and permissions (redeeming codes: device-codes.ts; the agents' actions: actions-service.ts).
import { and, eq, gt, gte, inArray, isNull, lte, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Db, Loaded } from '../db/client';
import {
  agentActions,
  agentDeviceCodes,
  agents,
  agentTokens,
  internalAccounts,
  type AgentRow,
  type Permission,
  type PlatformRow,
} from '../db/schema';
import { isInternalAccountId, newId } from '../crypto/ids';
import { iso } from '../common/time';
import { ApiError, invalidFields, notFound, retryableConflict, type FieldIssue } from '../http/errors';
import { dateRangeOrder, keysetIds, keysetLoads, mapPage, pageFrom, type KeysetQuery } from '../http/pagination';
import { platformClock } from '../platform/service';
import { requireHeld } from '../platform/tokens-service';
import { loadActiveCustomer } from '../customers/service';
import { externalAccountNotFound, loadExternalAccount } from '../external-accounts/service';
import { internalAccountNotFound } from '../accounts/internal-service';
import type { AgentPolicy, AgentPolicyUpdate } from './schema';
import { changeNeeds, policyNeeds } from './grants';
import { newDeviceCode } from './device-codes';

const CANNOT_GIVE = 'Giving the agent these powers needs permissions this API token lacks';

export const agentNotFound = () => notFound('AGENT_NOT_FOUND', 'Agent not found');
/** UTC day (YYYY-MM-DD) and month (YYYY-MM) that limits count in. */
export function periodOf(now: number) {
  const day = new Date(now).toISOString().slice(0, 10);
  return { day, month: day.slice(0, 7) };
}

export interface Usage {
  dailyTransactionCount: number;
  dailySpend: number;
  monthlySpend: number;
}

/**
 * Approved-and-executed spend per agent in the current UTC day and month of `now`, in the policy currency, as
 * a load. `agentIds` may be a subquery; `now` may be SQL (`platformClock`, in a load that runs before the
 * platform is read), the day and month then taken in SQL as `periodOf` takes them.
 */
export function usageLoad(db: Db, agentIds: string[] | SQLWrapper, now: number | SQL) {
  const period =
    typeof now === 'number'
      ? periodOf(now)
      : { day: sql`strftime('%Y-%m-%d', ${now} / 1000, 'unixepoch')`, month: sql`strftime('%Y-%m', ${now} / 1000, 'unixepoch')` };
  const usage = usageColumns(period.day);
  return db
    .select({
      agentId: agentActions.agentId,
      dailyCount: usage.dailyTransactionCount,
      dailySpend: usage.dailySpend,
      monthlySpend: usage.monthlySpend,
    })
    .from(agentActions)
    .where(and(inArray(agentActions.agentId, agentIds), eq(agentActions.counted, true), eq(agentActions.month, period.month)))
    .groupBy(agentActions.agentId);
}

/** Usage as aggregates over an agent's counted actions of one month (`day` picks the day's share): the one definition of spend. */
function usageColumns(day: string | SQL): Record<keyof Usage, SQL<number>> {
  return {
    dailyTransactionCount: sql<number>`COALESCE(SUM(CASE WHEN ${agentActions.day} = ${day} THEN 1 ELSE 0 END), 0)`,
    dailySpend: sql<number>`COALESCE(SUM(CASE WHEN ${agentActions.day} = ${day} THEN ${agentActions.policyAmount} ELSE 0 END), 0)`,
    monthlySpend: sql<number>`COALESCE(SUM(${agentActions.policyAmount}), 0)`,
  };
}

/** An agent's usage at `now` as SQL scalars, for a guard evaluated inside a batch. */
export function usageNow(agentId: string, now: number): Record<keyof Usage, SQL<number>> {
  const { day, month } = periodOf(now);
  const counted = sql`${agentActions.agentId} = ${agentId} AND ${agentActions.counted} = 1 AND ${agentActions.month} = ${month}`;
  const columns = usageColumns(day);
  const scalar = (column: SQL<number>) => sql<number>`(SELECT ${column} FROM ${agentActions} WHERE ${counted})`;
  return {
    dailyTransactionCount: scalar(columns.dailyTransactionCount),
    dailySpend: scalar(columns.dailySpend),
    monthlySpend: scalar(columns.monthlySpend),
  };
}

/** The usage of one agent from `usageLoad`'s rows (none: nothing spent yet). */
export function usageFrom(rows: Awaited<ReturnType<typeof usageLoad>>, agentId: string): Usage {
  const r = rows.find((x) => x.agentId === agentId);
  return r
    ? { dailyTransactionCount: r.dailyCount, dailySpend: r.dailySpend, monthlySpend: r.monthlySpend }
    : { dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 0 };
}

/** `usageLoad` of several agents, run. */
export async function usageOf(db: Db, agentIds: string[], now: number): Promise<Map<string, Usage>> {
  const rows = agentIds.length ? await usageLoad(db, agentIds, now) : [];
  return new Map(agentIds.map((id) => [id, usageFrom(rows, id)]));
}

export function agentView(row: AgentRow, usage: Usage, now: number) {
  const tomorrow = new Date(now + 86_400_000).toISOString().slice(0, 10);
  const d = new Date(now);
  const nextMonth = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
  return {
    id: row.id,
    name: row.name,
    customerId: row.customerId,
    isPaused: row.isPaused,
    isConnected: row.isConnected,
    policy: row.policy,
    usage: { ...usage, dailyResetDate: tomorrow, monthlyResetMonth: nextMonth },
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** Accounts a policy names must be internal accounts of the agent's customer. */
async function checkPolicyAccounts(db: Db, platformId: string, customerId: string, policy: AgentPolicy) {
  const named = [
    ...(policy.accountRestrictions?.allowedAccountIds ?? []).map((id, i) => ({
      id,
      field: `policy.accountRestrictions.allowedAccountIds.${i}`,
    })),
    ...(policy.accountRestrictions?.accountRules ?? []).map((r, i) => ({
      id: r.accountId,
      field: `policy.accountRestrictions.accountRules.${i}.accountId`,
    })),
  ];
  if (named.length === 0) return;
  const owned = await db
    .select({ id: internalAccounts.id })
    .from(internalAccounts)
    .where(
      and(
        eq(internalAccounts.platformId, platformId),
        eq(internalAccounts.customerId, customerId),
        inArray(internalAccounts.id, [...new Set(named.map((n) => n.id))]),
      ),
    );
  const ids = new Set(owned.map((o) => o.id));
  const issues: FieldIssue[] = named
    .filter((n) => !ids.has(n.id))
    .map((n) => ({ field: n.field, message: "Not an internal account of the agent's customer" }));
  if (issues.length) throw invalidFields('request body', issues);
}

/** A new agent with its first device code; `callerPermissions` (the API token's) must cover the policy's powers. */
export async function createAgent(
  db: Db,
  home: string,
  platform: PlatformRow,
  callerPermissions: Permission[],
  input: { name: string; customerId: string; policy: AgentPolicy },
  now: number,
) {
  requireHeld(callerPermissions, policyNeeds(input.policy), CANNOT_GIVE);
  await loadActiveCustomer(db, platform.id, input.customerId);
  await checkPolicyAccounts(db, platform.id, input.customerId, input.policy);
  const row: AgentRow = {
    id: newId('Agent', now),
    platformId: platform.id,
    customerId: input.customerId,
    name: input.name,
    isPaused: false,
    isConnected: false,
    policy: input.policy,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const code = newDeviceCode(row.id, platform.id, home, callerPermissions, now);
  await db.batch([db.insert(agents).values(row), db.insert(agentDeviceCodes).values(code.row)]);
  return { agent: agentView(row, { dailyTransactionCount: 0, dailySpend: 0, monthlySpend: 0 }, now), deviceCode: code.view };
}

async function loadAgent(db: Db, platformId: string, agentId: string): Promise<AgentRow> {
  const row = await db.query.agents.findFirst({
    where: and(eq(agents.id, agentId), eq(agents.platformId, platformId), isNull(agents.deletedAt)),
  });
  if (!row) throw agentNotFound();
  return row;
}

/** GET /agents/{id} as loads (`platformId` SQL: see `RouteSpec.load`; `wall` the wall clock): the agent and its usage. */
export function agentLoads(db: Db, platformId: SQL, agentId: string, wall: number) {
  const agent = and(eq(agents.id, agentId), eq(agents.platformId, platformId), isNull(agents.deletedAt));
  return {
    agent: db.select().from(agents).where(agent).limit(1),
    usage: usageLoad(db, db.select({ id: agents.id }).from(agents).where(agent), platformClock(platformId, wall)),
  };
}

export function agentFrom(loaded: Loaded<ReturnType<typeof agentLoads>>, now: number) {
  const row = loaded.agent[0];
  if (!row) throw agentNotFound();
  return agentView(row, usageFrom(loaded.usage, row.id), now);
}

interface AgentFilters {
  customerId?: string;
  isPaused?: boolean;
  isConnected?: boolean;
  createdAfter?: number;
  createdBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
  limit: number;
  cursor?: string;
}

/** GET /agents as loads: the page with its total, and the usage of the page's agents. */
export function agentListLoads(db: Db, platformId: SQL, f: AgentFilters, wall: number) {
  const page = agentPage(platformId, f);
  return { ...keysetLoads(db, page), usage: usageLoad(db, keysetIds(db, page), platformClock(platformId, wall)) };
}

/** The platform's live agents by id (by that date under a date range), with the filters. */
function agentPage(platformId: SQL, f: AgentFilters): KeysetQuery<AgentRow> {
  const where: (SQL | undefined)[] = [eq(agents.platformId, platformId), isNull(agents.deletedAt)];
  if (f.customerId !== undefined) where.push(eq(agents.customerId, f.customerId));
  if (f.isPaused !== undefined) where.push(eq(agents.isPaused, f.isPaused));
  if (f.isConnected !== undefined) where.push(eq(agents.isConnected, f.isConnected));
  if (f.createdAfter !== undefined) where.push(gte(agents.createdAt, f.createdAfter));
  if (f.createdBefore !== undefined) where.push(lte(agents.createdAt, f.createdBefore));
  if (f.updatedAfter !== undefined) where.push(gte(agents.updatedAt, f.updatedAfter));
  if (f.updatedBefore !== undefined) where.push(lte(agents.updatedAt, f.updatedBefore));
  return {
    table: agents,
    idColumn: agents.id,
    ...dateRangeOrder<AgentRow>([
      [agents.createdAt, (a) => a.createdAt, f.createdAfter !== undefined || f.createdBefore !== undefined],
      [agents.updatedAt, (a) => a.updatedAt, f.updatedAfter !== undefined || f.updatedBefore !== undefined],
    ]),
    where: and(...where),
    limit: f.limit,
    cursor: f.cursor,
    // The total unfiltered or of one customer alone, from the platform's or the customer's maintained count of live agents.
    counted:
      where.length === 2
        ? { platformId, list: 'agents' }
        : where.length === 3 && f.customerId !== undefined
          ? { platformId, list: `agents:${f.customerId}` }
          : undefined,
  };
}

export function agentListFrom(f: AgentFilters, loaded: Loaded<ReturnType<typeof agentListLoads>>, now: number) {
  return mapPage(pageFrom<AgentRow>(agentPage(sql`NULL`, f), loaded), (a) => agentView(a, usageFrom(loaded.usage, a.id), now));
}

export async function updateAgent(db: Db, platformId: string, agentId: string, patch: { name?: string; isPaused?: boolean }, now: number) {
  const changes: Partial<AgentRow> = { updatedAt: now };
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.isPaused !== undefined) changes.isPaused = patch.isPaused;
  const [row] = await db
    .update(agents)
    .set(changes)
    .where(and(eq(agents.id, agentId), eq(agents.platformId, platformId), isNull(agents.deletedAt)))
    .returning();
  if (!row) throw agentNotFound();
  return agentView(row, (await usageOf(db, [row.id], now)).get(row.id)!, now);
}

/** Policy merge: given fields replace, spending limits merge field by field; the result is validated whole. */
function mergePolicy(current: AgentPolicy, patch: AgentPolicyUpdate): AgentPolicy {
  return {
    permissions: patch.permissions ?? current.permissions,
    defaultExecutionMode: patch.defaultExecutionMode ?? current.defaultExecutionMode,
    spendingLimits: { ...current.spendingLimits, ...patch.spendingLimits },
    ...((patch.accountRestrictions ?? current.accountRestrictions)
      ? { accountRestrictions: patch.accountRestrictions ?? current.accountRestrictions }
      : {}),
    ...((patch.approvalThresholds ?? current.approvalThresholds)
      ? { approvalThresholds: patch.approvalThresholds ?? current.approvalThresholds }
      : {}),
  };
}

/**
 * Any widening (a new permission, AUTO, a looser limit, threshold or account list) needs the powers it gives;
 * narrowing needs none. The write applies only over the policy the check read, so a concurrent change is
 * never overwritten by one checked against an older policy.
 */
export async function updatePolicy(
  db: Db,
  platformId: string,
  agentId: string,
  callerPermissions: Permission[],
  patch: AgentPolicyUpdate,
  now: number,
) {
  const row = await loadAgent(db, platformId, agentId);
  const policy = mergePolicy(row.policy, patch);
  requireHeld(callerPermissions, changeNeeds(row.policy, policy), CANNOT_GIVE);
  await checkPolicyAccounts(db, platformId, row.customerId, policy);
  const [updated] = await db
    .update(agents)
    .set({ policy, updatedAt: now })
    .where(and(eq(agents.id, agentId), isNull(agents.deletedAt), sql`${agents.policy} = ${JSON.stringify(row.policy)}`))
    .returning();
  if (!updated) {
    await loadAgent(db, platformId, agentId);
    throw retryableConflict('The agent was changed concurrently; read it and try again');
  }
  return agentView(updated, (await usageOf(db, [row.id], now)).get(row.id)!, now);
}

/** Soft delete; its tokens and device codes stop working in the same batch. */
export async function deleteAgent(db: Db, platformId: string, agentId: string, now: number) {
  const [deleted] = await db.batch([
    db
      .update(agents)
      .set({ deletedAt: now, updatedAt: now })
      .where(and(eq(agents.id, agentId), eq(agents.platformId, platformId), isNull(agents.deletedAt)))
      .returning({ id: agents.id }),
    db
      .update(agentTokens)
      .set({ revokedAt: now })
      .where(and(eq(agentTokens.agentId, agentId), eq(agentTokens.platformId, platformId), isNull(agentTokens.revokedAt))),
    db
      .update(agentDeviceCodes)
      .set({ expiresAt: now })
      .where(and(eq(agentDeviceCodes.agentId, agentId), eq(agentDeviceCodes.platformId, platformId), isNull(agentDeviceCodes.redeemedAt))),
  ]);
  if (deleted.length === 0) throw agentNotFound();
}

/** A fresh code; earlier unredeemed codes of the agent stop working. Connecting an agent needs its policy's powers. */
export async function issueDeviceCode(
  db: Db,
  home: string,
  platformId: string,
  agentId: string,
  callerPermissions: Permission[],
  now: number,
) {
  const agent = await loadAgent(db, platformId, agentId);
  requireHeld(callerPermissions, policyNeeds(agent.policy), 'Connecting this agent needs permissions this API token lacks');
  const code = newDeviceCode(agentId, platformId, home, callerPermissions, now);
  await db.batch([
    db
      .update(agentDeviceCodes)
      .set({ expiresAt: now })
      .where(and(eq(agentDeviceCodes.agentId, agentId), isNull(agentDeviceCodes.redeemedAt), gt(agentDeviceCodes.expiresAt, now))),
    db.insert(agentDeviceCodes).values(code.row),
  ]);
  return code.view;
}

/** An external account of the agent's customer; any other id answers 404 exactly as an unknown one. */
export async function agentExternalAccount(db: Db, agent: AgentRow, id: string) {
  const row = await loadExternalAccount(db, agent.platformId, id);
  if (row.customerId !== agent.customerId) throw externalAccountNotFound();
  return row;
}

/** 404 as unknown unless the account row as read (undefined: none of the platform's) is the agent's customer's. */
export function requireCustomerAccountRow(agent: AgentRow, id: string, row: { customerId: string | null } | undefined): void {
  if (row?.customerId === agent.customerId) return;
  throw isInternalAccountId(id) ? internalAccountNotFound() : externalAccountNotFound();
}

/** 403 unless the agent's policy grants `permission` (and the agent is not paused, for actions). */
export function requireAgentPermission(agent: AgentRow, permission: AgentPolicy['permissions'][number], acting = false) {
  if (!agent.policy.permissions.includes(permission)) throw new ApiError('FORBIDDEN', `The agent's policy does not grant ${permission}`);
  if (acting && agent.isPaused) throw new ApiError('FORBIDDEN', 'The agent is paused');
}
