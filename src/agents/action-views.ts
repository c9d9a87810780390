// Agent actions as the API shows them: the view (with its quote and transaction), one action, the agent's
// own list and the platform's list of actions awaiting it.
import { and, eq, gte, inArray, isNotNull, lte, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type * as z from 'zod';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { loadTogether, type Db, type Loaded } from '../db/client';
import {
  agentActions,
  customers,
  quotes,
  transactions,
  type AgentActionRow,
  type AgentRow,
  type QuoteRow,
  type TransactionRow,
} from '../db/schema';
import { iso } from '../common/time';
import { notFound } from '../http/errors';
import { dateRangeOrder, keysetIds, keysetLoads, keysetPage, pageFrom, type KeysetQuery } from '../http/pagination';
import { quoteView, transactionView } from '../payments/views';
import type { AgentAction } from './schema';

export const actionNotFound = () => notFound('AGENT_ACTION_NOT_FOUND', 'Agent action not found');

export async function loadAction(db: Db, platformId: string, id: string, agentId?: string): Promise<AgentActionRow> {
  const where = [eq(agentActions.id, id), eq(agentActions.platformId, platformId)];
  if (agentId) where.push(eq(agentActions.agentId, agentId));
  const row = await db.query.agentActions.findFirst({ where: and(...where) });
  if (!row) throw actionNotFound();
  return row;
}

/** The AgentAction view: `transaction` only once approved (and execution has begun), `rejectionReason` only when rejected. */
export function actionViewOf(
  r: AgentActionRow,
  tx: TransactionRow | undefined,
  quote: QuoteRow | undefined,
  platformCustomerId: string | undefined,
): z.infer<typeof AgentAction> {
  return {
    id: r.id,
    agentId: r.agentId,
    customerId: r.customerId,
    platformCustomerId: platformCustomerId ?? '',
    status: r.status,
    type: r.type,
    ...(quote ? { quote: quoteView(quote, tx?.status ?? 'PENDING') } : {}),
    ...(r.transferDetails ? { transferDetails: r.transferDetails } : {}),
    ...(tx && (r.status === 'APPROVED' || r.status === 'FAILED') ? { transaction: transactionView(tx) } : {}),
    ...(r.status === 'REJECTED' && r.rejectionReason ? { rejectionReason: r.rejectionReason } : {}),
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
  };
}
export type ActionView = ReturnType<typeof actionViewOf>;

export async function actionView(db: Db, row: AgentActionRow) {
  return (await actionViews(db, [row]))[0]!;
}

/** The rows an action's view shows besides the action, for the actions `ids` names (a list or a subquery). */
function viewLoads(db: Db, ids: string[] | SQLWrapper) {
  const ofActions = (column: AnySQLiteColumn) => db.select({ id: column }).from(agentActions).where(inArray(agentActions.id, ids));
  return {
    txs: db
      .select()
      .from(transactions)
      .where(inArray(transactions.id, ofActions(agentActions.transactionId))),
    quotes: db
      .select()
      .from(quotes)
      .where(inArray(quotes.id, ofActions(agentActions.quoteId))),
    customers: db
      .select({ id: customers.id, platformCustomerId: customers.platformCustomerId })
      .from(customers)
      .where(inArray(customers.id, ofActions(agentActions.customerId))),
  };
}

function viewsFrom(rows: AgentActionRow[], loaded: Loaded<ReturnType<typeof viewLoads>>) {
  const pcid = new Map(loaded.customers.map((c) => [c.id, c.platformCustomerId]));
  const txById = new Map(loaded.txs.map((t) => [t.id, t]));
  const quoteById = new Map(loaded.quotes.map((q) => [q.id, q]));
  return rows.map((r) =>
    actionViewOf(
      r,
      r.transactionId ? txById.get(r.transactionId) : undefined,
      r.quoteId ? quoteById.get(r.quoteId) : undefined,
      pcid.get(r.customerId),
    ),
  );
}

async function actionViews(db: Db, rows: AgentActionRow[]) {
  return viewsFrom(rows, await loadTogether(db, viewLoads(db, rows.length ? rows.map((r) => r.id) : [''])));
}

export async function listAgentActions(db: Db, agent: AgentRow, q: { status?: AgentActionRow['status']; limit: number; cursor?: string }) {
  const where = [eq(agentActions.agentId, agent.id), eq(agentActions.platformId, agent.platformId)];
  if (q.status) where.push(eq(agentActions.status, q.status));
  const page = await keysetPage<AgentActionRow>(db, {
    table: agentActions,
    idColumn: agentActions.id,
    where: and(...where),
    limit: q.limit,
    cursor: q.cursor,
    // The total only unfiltered, from the agent's maintained count.
    counted: q.status ? undefined : { platformId: sql`${agent.platformId}`, list: `agent_actions:${agent.id}` },
    order: 'desc',
  });
  return { ...page, data: await actionViews(db, page.data) };
}

type ApprovalListQuery = {
  agentId?: string;
  customerId?: string;
  startDate?: number;
  endDate?: number;
  sortOrder: 'asc' | 'desc';
  limit: number;
  cursor?: string;
};

/**
 * GET /agents/approvals as loads (`platformId` SQL: see `RouteSpec.load`): the platform's actions waiting
 * for it, with their total and what their views show.
 */
export function approvalListLoads(db: Db, platformId: SQL, q: ApprovalListQuery) {
  const page = approvalPage(platformId, q);
  return { ...keysetLoads(db, page), ...viewLoads(db, keysetIds(db, page)) };
}

/** The platform's actions waiting for it by id (by creation time under a date range), with the filters. */
function approvalPage(platformId: SQL, q: ApprovalListQuery): KeysetQuery<AgentActionRow> {
  const where: SQL[] = [
    eq(agentActions.platformId, platformId),
    eq(agentActions.status, 'PENDING_APPROVAL'),
    isNotNull(agentActions.transactionId),
  ];
  if (q.agentId) where.push(eq(agentActions.agentId, q.agentId));
  if (q.customerId) where.push(eq(agentActions.customerId, q.customerId));
  if (q.startDate !== undefined) where.push(gte(agentActions.createdAt, q.startDate));
  if (q.endDate !== undefined) where.push(lte(agentActions.createdAt, q.endDate));
  const unfiltered = where.length === 3;
  return {
    table: agentActions,
    idColumn: agentActions.id,
    ...dateRangeOrder<AgentActionRow>([[agentActions.createdAt, (a) => a.createdAt, q.startDate !== undefined || q.endDate !== undefined]]),
    where: and(...where),
    limit: q.limit,
    cursor: q.cursor,
    // The total only unfiltered, from the platform's maintained count of actions waiting for it.
    counted: unfiltered ? { platformId, list: 'agent_approvals' } : undefined,
    order: q.sortOrder,
  };
}

export function approvalListFrom(q: ApprovalListQuery, loaded: Loaded<ReturnType<typeof approvalListLoads>>) {
  const page = pageFrom<AgentActionRow>(approvalPage(sql`NULL`, q), loaded);
  return { ...page, data: viewsFrom(page.data, loaded) };
}
