// Agent actions: the policy and limit checks around the payments' approval pipeline (payments/approvals-service.ts):
// a request is read in one round trip and recorded, with its action and (AUTO) its execution, in one batch.
// Over 300 lines because submit, approve, reject and the views share the action's rules.
import { and, eq, exists, getTableColumns, gte, inArray, isNotNull, isNull, lte, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { guard, loadTogether, type Db, type Loaded, type Statement } from '../db/client';
import { errorText, isGuardFailure } from '../db/errors';
import {
  agentActions,
  agents,
  customers,
  quotes,
  transactions,
  type AgentActionRow,
  type AgentRow,
  type PlatformRow,
  type QuoteRow,
  type TransactionRow,
} from '../db/schema';
import { newId } from '../crypto/ids';
import { iso } from '../common/time';
import { ApiError, conflict, forbidden, notFound, retryableConflict } from '../http/errors';
import { dateRangeOrder, keysetIds, keysetLoads, keysetPage, pageFrom, type KeysetQuery } from '../http/pagination';
import { eventStatements } from '../webhooks/outbox';
import {
  accountsOf,
  awaiting,
  awaitingChange,
  carryOut,
  outcomeOf,
  rejectTransaction,
  requestLoads,
  type ApprovalRequest,
  type Outcome,
  type RequestLoaded,
} from '../payments/approvals-service';
import { quoteNotFound } from '../payments/quotes-service';
import { commitChange, type PaymentDeps } from '../payments/transaction-change';
import type { TransferLoaded } from '../payments/transfers-service';
import { awaitingApproval, quoteView, transactionView } from '../payments/views';
import { checkPeriodLimits, decide } from './policy';
import type { AgentPolicy } from './schema';
import { agentNotFound, periodOf, requireAgentPermission, usageFrom, usageLoad, usageOf } from './service';

/** What an agent asks to do with money (spec 2.6). */
export type MoneyRequest = ApprovalRequest;

const actionNotFound = () => notFound('NOT_FOUND', 'Agent action not found');
const notPending = () => conflict('The action is not awaiting approval');
const limitRefused = (message: string) => new ApiError('FORBIDDEN', message);
const agentDeleted = () => forbidden('The agent was deleted: its pending actions can only be rejected');

/** The policy permission each kind of money-moving request needs (spec 2.6). */
const ACTION_PERMISSION = {
  EXECUTE_QUOTE: 'EXECUTE_QUOTES',
  TRANSFER_OUT: 'CREATE_TRANSFERS',
  TRANSFER_IN: 'CREATE_TRANSFERS',
} as const satisfies Record<MoneyRequest['type'], AgentPolicy['permissions'][number]>;

/** 403 unless the agent may act now on a request of `type`: not paused, and its policy grants the permission. */
export const requireActing = (agent: AgentRow, type: MoneyRequest['type']) => requireAgentPermission(agent, ACTION_PERMISSION[type], true);

/** SQL that holds while the agent is as `agent` was read: not deleted, not paused, the same policy. */
const agentAsRead = (db: Db, agent: AgentRow) =>
  exists(
    db
      .select({ one: sql`1` })
      .from(agents)
      .where(
        and(
          eq(agents.id, agent.id),
          isNull(agents.deletedAt),
          eq(agents.isPaused, false),
          sql`json(${agents.policy}) = json(${JSON.stringify(agent.policy)})`,
        ),
      ),
  );
const sameAgent = (a: AgentRow, b: AgentRow | undefined) =>
  !!b && b.deletedAt === null && b.isPaused === a.isPaused && JSON.stringify(b.policy) === JSON.stringify(a.policy);

/** What an agent's request reads, with the agent's usage, in one round trip (shared with an Idempotency-Key claim). */
export function actionLoads(db: Db, agent: AgentRow, req: MoneyRequest, now: number) {
  return {
    ...requestLoads(db, sql`${agent.platformId}`, req),
    usage: usageLoad(db, [agent.id], now),
    customer: customerRef(db, eq(customers.id, agent.customerId)),
  };
}
export type ActionLoaded = Loaded<ReturnType<typeof actionLoads>>;

/** The platform's id for a customer, as the action shows it. */
const customerRef = (db: Db, which: SQL | undefined) =>
  db.select({ platformCustomerId: customers.platformCustomerId }).from(customers).where(which).limit(1);

/** Amount, currency and accounts of a request, checked to be the agent's customer's (404 as unknown otherwise). */
function describe(agent: AgentRow, req: MoneyRequest, loaded: RequestLoaded) {
  if (req.type === 'EXECUTE_QUOTE') {
    const quote = 'quote' in loaded ? loaded.quote[0] : undefined;
    if (!quote || quote.customerId !== agent.customerId) throw quoteNotFound();
    return {
      amount: quote.totalSendingAmount,
      currency: quote.sendingCurrency,
      accountIds: quote.sourceAccountId ? [quote.sourceAccountId] : [],
      transferDetails: null,
      quote,
    };
  }
  const { internal, external } = loaded as TransferLoaded;
  const ours = {
    internal: internal[0]?.customerId === agent.customerId ? internal[0] : undefined,
    external: external[0]?.customerId === agent.customerId ? external[0] : undefined,
  };
  const internalSlot = req.type === 'TRANSFER_OUT' ? req.sourceAccountId : req.destinationAccountId;
  for (const id of [req.sourceAccountId, req.destinationAccountId]) {
    if (id === internalSlot && !ours.internal) throw notFound('NOT_FOUND', 'Internal account not found');
    if (id !== internalSlot && !ours.external) throw notFound('NOT_FOUND', 'External account not found');
  }
  const currency = ours.internal!.currency;
  const transferDetails = {
    amount: req.amount,
    currency,
    sourceAccountId: req.sourceAccountId,
    destinationAccountId: req.destinationAccountId,
  };
  return { amount: req.amount, currency, accountIds: [req.sourceAccountId, req.destinationAccountId], transferDetails, quote: undefined };
}

/**
 * SQL that holds while spend already counted today / this month plus `amount` stays within the policy's
 * limits. Evaluated inside the one statement that counts the action, so concurrent requests cannot
 * together pass a limit (D1 runs statements one at a time).
 */
function withinLimits(agentId: string, amount: number, limits: AgentPolicy['spendingLimits'], now: number): SQL {
  const { day, month } = periodOf(now);
  const counted = sql`${agentActions.agentId} = ${agentId} AND ${agentActions.counted} = 1`;
  const parts: SQL[] = [sql`1 = 1`];
  if (limits.dailyLimit != null) {
    parts.push(
      sql`(SELECT COALESCE(SUM(policy_amount), 0) FROM agent_actions WHERE ${counted} AND day = ${day}) + ${amount} <= ${limits.dailyLimit}`,
    );
  }
  if (limits.monthlyLimit != null) {
    parts.push(
      sql`(SELECT COALESCE(SUM(policy_amount), 0) FROM agent_actions WHERE ${counted} AND month = ${month}) + ${amount} <= ${limits.monthlyLimit}`,
    );
  }
  if (limits.dailyTransactionLimit !== undefined) {
    parts.push(sql`(SELECT COUNT(*) FROM agent_actions WHERE ${counted} AND day = ${day}) + 1 <= ${limits.dailyTransactionLimit}`);
  }
  return sql.join(parts, sql` AND `);
}

/** Explains a refused count with the current usage (the refusal itself came from the atomic statement). */
async function refusedByLimits(db: Db, agent: AgentRow, amount: number, now: number): Promise<never> {
  const usage = (await usageOf(db, [agent.id], now)).get(agent.id)!;
  checkPeriodLimits(agent.policy.spendingLimits, usage, amount);
  throw limitRefused("This would pass one of the agent's spending limits");
}

const failedOutcome = (tx: TransactionRow) => tx.status === 'FAILED' || tx.status === 'EXPIRED' || tx.status === 'REJECTED';

/** The action as its transaction leaves it: APPROVED and counted, or FAILED (not counted) when the execution failed. */
function settled(action: AgentActionRow, tx: TransactionRow, now: number): AgentActionRow {
  const failed = failedOutcome(tx);
  return {
    ...action,
    transactionId: tx.id,
    status: failed ? 'FAILED' : 'APPROVED',
    counted: !failed,
    failureReason: failed ? tx.failureReason : null,
    updatedAt: now,
  };
}

/** Inserts `row`, counted: only while the agent's limits hold, and the guard after it fails the batch otherwise. */
function countedInsert(db: Db, row: AgentActionRow, limits: AgentPolicy['spendingLimits'], now: number): Statement[] {
  // Values in the table's column order (drizzle's insert-select names every column), as stored: JSON as
  // text, booleans as 0/1.
  const values = Object.keys(getTableColumns(agentActions)).map((key) => {
    const v = row[key as keyof AgentActionRow];
    return v !== null && typeof v === 'object' ? JSON.stringify(v) : typeof v === 'boolean' ? Number(v) : v;
  });
  return [
    db.insert(agentActions).select(
      sql`SELECT ${sql.join(
        values.map((v) => sql`${v}`),
        sql`, `,
      )} WHERE ${withinLimits(row.agentId, row.policyAmount, limits, now)}`,
    ),
    guard(db, sql`changes() > 0`),
  ];
}

/** What the caller records with the action, given its view (an Idempotency-Key's answer). */
export type Answer = (view: ActionView) => Statement[];

/**
 * An agent's money-moving request (spec 2.6, 3.2) over what `actionLoads` read: refused (403, nothing
 * recorded) by the policy; AUTO and within limits: counted and executed at once, APPROVED (or FAILED if the
 * execution fails); otherwise PENDING_APPROVAL with its transaction awaiting the platform, and an
 * AGENT_ACTION.PENDING_APPROVAL webhook. The transaction carries `agentId`. One batch records it all.
 */
export async function submitAction(
  deps: PaymentDeps,
  platform: PlatformRow,
  agent: AgentRow,
  req: MoneyRequest,
  loaded: ActionLoaded,
  now: number,
  answer: Answer = () => [],
): Promise<ActionView> {
  const { db } = deps;
  const d = describe(agent, req, loaded);
  const decision = await decide(agent, d, usageFrom(loaded.usage, agent.id), now, deps.rates);
  const a = awaiting(platform, req, loaded, now, deps.mode, agent.id);
  const { day, month } = periodOf(now);
  const action: AgentActionRow = {
    id: newId('AgentAction', now),
    platformId: platform.id,
    agentId: agent.id,
    customerId: agent.customerId,
    type: req.type,
    status: 'PENDING_APPROVAL',
    quoteId: req.type === 'EXECUTE_QUOTE' ? req.quoteId : null,
    transferDetails: d.transferDetails,
    request: req,
    transactionId: a.base.id,
    rejectionReason: null,
    failureReason: null,
    policyAmount: decision.policyAmount,
    counted: false,
    day,
    month,
    createdAt: now,
    updatedAt: now,
  };
  let view: ActionView | undefined;
  const commit = async (outcome?: Outcome) => {
    const change = await awaitingChange(db, a, now, deps.mode, {
      outcome,
      add: (tx) => {
        if (!outcome) {
          view = actionViewOf(action, tx, d.quote, loaded.customer[0]?.platformCustomerId);
          const event = eventStatements(db, { platformId: platform.id, type: 'AGENT_ACTION.PENDING_APPROVAL', data: view, now });
          return {
            before: [db.insert(agentActions).values(action)],
            after: [...event.statements, ...answer(view)],
            eventIds: [event.eventId],
          };
        }
        const row = settled(action, tx, now);
        view = actionViewOf(row, tx, d.quote, loaded.customer[0]?.platformCustomerId);
        // Counted in the statement that records it: the limit check and the spend are one step.
        const before = row.counted ? countedInsert(db, row, agent.policy.spendingLimits, now) : [db.insert(agentActions).values(row)];
        return { before, after: answer(view) };
      },
    });
    return commitChange(deps, change);
  };
  let result: Awaited<ReturnType<typeof commitChange>>;
  try {
    result = await commit(decision.mode === 'AUTO' ? 'run' : undefined);
  } catch (error) {
    if (isGuardFailure(errorText(error))) await refusedByLimits(db, agent, decision.policyAmount, now);
    throw error;
  }
  // Not enough money: the approved execution fails and nothing moves.
  if (result === 'insufficient_funds') result = await commit('failed');
  if (result === 'conflict') throw retryableConflict('The quote changed concurrently; retry', 'QUOTE_NOT_PENDING');
  if (result !== 'applied') throw new Error(`agent action not recorded: ${result}`);
  return view!;
}

/**
 * Finds an agent action with its agent, transaction and quote in one load (an approval's authentication
 * batch): by its id under an agent, or by its transaction. `platformId` is SQL (see `RouteSpec.preload`).
 */
export function pendingActionLoads(db: Db, platformId: SQL, by: { actionId: string; agentId: string } | { transactionId: string }) {
  const where =
    'actionId' in by
      ? and(eq(agentActions.platformId, platformId), eq(agentActions.id, by.actionId), eq(agentActions.agentId, by.agentId))
      : and(eq(agentActions.platformId, platformId), eq(agentActions.transactionId, by.transactionId));
  const column = (c: AnySQLiteColumn) =>
    db
      .select({ v: sql<string>`${c}` })
      .from(agentActions)
      .where(where);
  return {
    action: db.select().from(agentActions).where(where).limit(1),
    agent: db
      .select()
      .from(agents)
      .where(
        and(
          eq(agents.platformId, platformId),
          'agentId' in by ? eq(agents.id, by.agentId) : eq(agents.id, column(agentActions.agentId)),
          isNull(agents.deletedAt),
        ),
      )
      .limit(1),
    tx: db
      .select()
      .from(transactions)
      .where(
        and(
          eq(transactions.platformId, platformId),
          'transactionId' in by ? eq(transactions.id, by.transactionId) : eq(transactions.id, column(agentActions.transactionId)),
        ),
      )
      .limit(1),
    quote: db
      .select()
      .from(quotes)
      .where(and(eq(quotes.platformId, platformId), eq(quotes.id, column(agentActions.quoteId))))
      .limit(1),
    customer: customerRef(db, eq(customers.id, column(agentActions.customerId))),
  };
}
export type PendingActionLoaded = Loaded<ReturnType<typeof pendingActionLoads>>;

/**
 * The platform approves a pending action: the agent's current policy is checked again now, as the agent's own
 * request would be (not deleted or paused, the permission granted, allowed accounts, per-transaction limit,
 * spending limits). A refusal is 403 and changes nothing: the action stays pending, to be rejected or approved
 * once the policy allows it. Then the transaction executes; an expired quote or a shortfall ends the action
 * FAILED. The batch that executes holds only while the agent is still as checked (a concurrent pause or
 * policy change makes it a retryable 409) and the limits still hold. One read, one batch.
 */
export async function approveAction(deps: PaymentDeps, platform: PlatformRow, found: PendingActionLoaded, now: number) {
  const { db } = deps;
  const [action, agent, tx] = [found.action[0], found.agent[0], found.tx[0]];
  if (!action) throw agent ? actionNotFound() : agentNotFound();
  if (action.status !== 'PENDING_APPROVAL' || !tx) throw notPending();
  if (!awaitingApproval(tx)) {
    // The transaction ended on its own meanwhile (its quote expired): the approved action fails.
    if (!failedOutcome(tx)) throw notPending();
    const failed = settled(action, tx, now);
    const { id, ...fields } = failed;
    const [changed] = await db
      .update(agentActions)
      .set(fields)
      .where(and(eq(agentActions.id, id), eq(agentActions.status, 'PENDING_APPROVAL')))
      .returning({ id: agentActions.id });
    if (!changed) throw notPending();
    return { view: actionViewOf(failed, tx, found.quote[0], found.customer[0]?.platformCustomerId), tx };
  }
  if (!agent) throw agentDeleted();
  requireActing(agent, action.type);
  const request = action.request as MoneyRequest;
  const loaded = await loadTogether(db, actionLoads(db, agent, request, now));
  // Accounts deleted meanwhile: the approval goes on and the execution fails, as for any approved payment.
  let d: ReturnType<typeof describe> | null = null;
  try {
    d = describe(agent, request, loaded);
  } catch {
    d = null;
  }
  const policyAmount = d ? (await decide(agent, d, usageFrom(loaded.usage, agent.id), now, deps.rates)).policyAmount : action.policyAmount;
  const { day, month } = periodOf(now);
  let view: ActionView | undefined;
  let row: TransactionRow | null;
  try {
    row = await carryOut(deps, tx, outcomeOf(platform, tx, loaded, now), now, {
      accounts: accountsOf(loaded),
      add: (executed) => {
        const next = settled({ ...action, policyAmount, day, month }, executed, now);
        view = actionViewOf(next, executed, found.quote[0], loaded.customer[0]?.platformCustomerId);
        const { id, ...fields } = next;
        const pendingNow = and(eq(agentActions.id, id), eq(agentActions.status, 'PENDING_APPROVAL'), agentAsRead(db, agent));
        const where = next.counted ? and(pendingNow, withinLimits(agent.id, policyAmount, agent.policy.spendingLimits, now)) : pendingNow;
        return { before: [db.update(agentActions).set(fields).where(where), guard(db, sql`changes() > 0`)] };
      },
    });
  } catch (error) {
    if (!isGuardFailure(errorText(error))) throw error;
    const [[current], [agentNow]] = await db.batch([
      db.select().from(agentActions).where(eq(agentActions.id, action.id)),
      db.select().from(agents).where(eq(agents.id, agent.id)),
    ]);
    if (current?.status !== 'PENDING_APPROVAL') throw notPending();
    // Paused, deleted or its policy changed since it was checked: a retry checks the policy as it is now.
    if (!sameAgent(agent, agentNow)) throw retryableConflict('The agent changed while the action was being approved; retry');
    return refusedByLimits(db, agent, policyAmount, now);
  }
  if (!row) throw notPending();
  return { view: view!, tx: row };
}

/** The platform rejects a pending action: REJECTED with the reason, its transaction never executes. One batch. */
export async function rejectAction(deps: PaymentDeps, found: PendingActionLoaded, reason: string | undefined, now: number) {
  const { db } = deps;
  const [action, tx] = [found.action[0], found.tx[0]];
  if (!action) throw actionNotFound();
  if (action.status !== 'PENDING_APPROVAL' || !tx) throw notPending();
  const rejected: AgentActionRow = { ...action, status: 'REJECTED', rejectionReason: reason ?? null, updatedAt: now };
  const claim = db
    .update(agentActions)
    .set({ status: 'REJECTED', rejectionReason: reason ?? null, updatedAt: now })
    .where(and(eq(agentActions.id, action.id), eq(agentActions.status, 'PENDING_APPROVAL')));
  let row: TransactionRow;
  try {
    row = await rejectTransaction(deps, tx, reason, now, { before: [claim, guard(db, sql`changes() > 0`)] });
  } catch (error) {
    if (isGuardFailure(errorText(error))) throw notPending();
    throw error;
  }
  return { view: actionViewOf(rejected, row, found.quote[0], found.customer[0]?.platformCustomerId), tx: row };
}

export async function loadAction(db: Db, platformId: string, id: string, agentId?: string): Promise<AgentActionRow> {
  const where = [eq(agentActions.id, id), eq(agentActions.platformId, platformId)];
  if (agentId) where.push(eq(agentActions.agentId, agentId));
  const row = await db.query.agentActions.findFirst({ where: and(...where) });
  if (!row) throw actionNotFound();
  return row;
}

/** AgentAction (spec 2.6): `transaction` only once approved (and execution has begun), `rejectionReason` only when rejected. */
export function actionViewOf(
  r: AgentActionRow,
  tx: TransactionRow | undefined,
  quote: QuoteRow | undefined,
  platformCustomerId: string | undefined,
) {
  const view: Record<string, unknown> = {
    id: r.id,
    agentId: r.agentId,
    customerId: r.customerId,
    platformCustomerId: platformCustomerId ?? '',
    status: r.status,
    type: r.type,
  };
  if (quote) view.quote = quoteView(quote, tx?.status ?? 'PENDING');
  if (r.transferDetails) view.transferDetails = r.transferDetails;
  if (tx && (r.status === 'APPROVED' || r.status === 'FAILED')) view.transaction = transactionView(tx);
  if (r.status === 'REJECTED' && r.rejectionReason) view.rejectionReason = r.rejectionReason;
  view.createdAt = iso(r.createdAt);
  view.updatedAt = iso(r.updatedAt);
  return view;
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
