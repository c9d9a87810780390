// Agent actions: policy and limit checks, the AUTO path and approvals. Over 300 lines, and a second
// money pipeline beside the platforms' one: issue 14 folds it into that one, so it stays whole until then.
import { and, eq, gte, inArray, isNotNull, lte, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import {
  agentActions,
  customers,
  quotes,
  transactions,
  type AgentActionRow,
  type AgentRow,
  type PlatformRow,
  type TransactionRow,
} from '../db/schema';
import { newId } from '../crypto/ids';
import { iso } from '../common/time';
import { ApiError, conflict, notFound } from '../http/errors';
import { keysetPage, type Page } from '../http/pagination';
import { loadInternalAccount } from '../accounts/internal-service';
import { dispatchEvents, eventStatements } from '../webhooks/outbox';
import { approveTransaction, rejectTransaction, requestPlatformApproval } from '../payments/approvals-service';
import { loadQuote, quoteNotFound } from '../payments/quotes-service';
import { loadTransaction } from '../payments/transactions-service';
import type { PaymentDeps } from '../payments/transaction-change';
import { quoteView, transactionView } from '../payments/views';
import { checkPeriodLimits, decide } from './policy';
import type { AgentPolicy } from './schema';
import { loadAgent, periodOf, requireCustomerAccount, usageOf } from './service';

/** What an agent asks to do with money (spec 2.6). */
export type MoneyRequest =
  | { type: 'EXECUTE_QUOTE'; quoteId: string }
  | { type: 'TRANSFER_OUT' | 'TRANSFER_IN'; sourceAccountId: string; destinationAccountId: string; amount: number };

const actionNotFound = () => notFound('NOT_FOUND', 'Agent action not found');
const notPending = () => conflict('The action is not awaiting approval');
const limitRefused = (message: string) => new ApiError('FORBIDDEN', message);

/** Amount, currency and accounts of a request, checked to be the agent's customer's. */
async function describe(db: Db, agent: AgentRow, req: MoneyRequest) {
  if (req.type === 'EXECUTE_QUOTE') {
    const { quote } = await loadQuote(db, agent.platformId, req.quoteId);
    if (quote.customerId !== agent.customerId) throw quoteNotFound();
    return {
      amount: quote.totalSendingAmount,
      currency: quote.sendingCurrency,
      accountIds: quote.sourceAccountId ? [quote.sourceAccountId] : [],
      transferDetails: null,
    };
  }
  await requireCustomerAccount(db, agent, req.sourceAccountId);
  await requireCustomerAccount(db, agent, req.destinationAccountId);
  const internalId = req.type === 'TRANSFER_OUT' ? req.sourceAccountId : req.destinationAccountId;
  const currency = (await loadInternalAccount(db, agent.platformId, internalId)).currency;
  const transferDetails = {
    amount: req.amount,
    currency,
    sourceAccountId: req.sourceAccountId,
    destinationAccountId: req.destinationAccountId,
  };
  return { amount: req.amount, currency, accountIds: [req.sourceAccountId, req.destinationAccountId], transferDetails };
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

/**
 * An agent's money-moving request (spec 2.6, 3.2): refused (403, nothing recorded) by the policy;
 * AUTO and within limits: counted, executed at once, APPROVED (or FAILED if execution fails);
 * otherwise PENDING_APPROVAL with its transaction awaiting the platform, and an
 * AGENT_ACTION.PENDING_APPROVAL webhook. The transaction carries `agentId`.
 */
export async function submitAction(deps: PaymentDeps, platform: PlatformRow, agent: AgentRow, req: MoneyRequest, now: number) {
  const { db } = deps;
  const d = await describe(db, agent, req);
  const usage = (await usageOf(db, [agent.id], now)).get(agent.id)!;
  const decision = await decide(agent, d, usage, now, deps.rates);
  const { day, month } = periodOf(now);
  const row: AgentActionRow = {
    id: newId('AgentAction', now),
    platformId: platform.id,
    agentId: agent.id,
    customerId: agent.customerId,
    type: req.type,
    status: decision.mode === 'AUTO' ? 'APPROVED' : 'PENDING_APPROVAL',
    quoteId: req.type === 'EXECUTE_QUOTE' ? req.quoteId : null,
    transferDetails: d.transferDetails,
    request: req,
    transactionId: null,
    rejectionReason: null,
    failureReason: null,
    policyAmount: decision.policyAmount,
    counted: decision.mode === 'AUTO',
    day,
    month,
    createdAt: now,
    updatedAt: now,
  };
  if (decision.mode === 'AUTO') {
    // Counted in the statement that records it: the limit check and the spend are one step.
    const columns = Object.keys(row).map((k) => sql.identifier(agentActions[k as keyof AgentActionRow].name));
    const values = Object.values(row).map((v) =>
      v !== null && typeof v === 'object' ? JSON.stringify(v) : typeof v === 'boolean' ? Number(v) : v,
    );
    const inserted = await db.run(
      sql`INSERT INTO agent_actions (${sql.join(columns, sql`, `)}) SELECT ${sql.join(
        values.map((v) => sql`${v}`),
        sql`, `,
      )} WHERE ${withinLimits(agent.id, decision.policyAmount, agent.policy.spendingLimits, now)}`,
    );
    if (inserted.meta.changes === 0) await refusedByLimits(db, agent, decision.policyAmount, now);
  } else {
    await db.insert(agentActions).values(row);
  }
  let tx: TransactionRow;
  try {
    tx = await requestPlatformApproval(deps, platform, { ...req, agentId: agent.id }, now);
  } catch (error) {
    // The request itself is invalid (account closed, quote expired...): nothing is recorded.
    await db.delete(agentActions).where(eq(agentActions.id, row.id));
    throw error;
  }
  if (decision.mode === 'AUTO') return finishApproved(deps, platform, { ...row, transactionId: tx.id }, now);
  const pending = { ...row, transactionId: tx.id };
  const event = eventStatements(db, {
    platformId: platform.id,
    type: 'AGENT_ACTION.PENDING_APPROVAL',
    data: await actionView(db, pending),
    now,
  });
  await db.batch([db.update(agentActions).set({ transactionId: tx.id }).where(eq(agentActions.id, row.id)), ...event.statements]);
  await dispatchEvents(deps.queue, [event.eventId], deps.log);
  return actionView(db, pending);
}

/** Executes the approved action's transaction; a failed execution un-counts it and ends it FAILED. */
async function finishApproved(deps: PaymentDeps, platform: PlatformRow, action: AgentActionRow, now: number) {
  let tx: TransactionRow;
  try {
    tx = await approveTransaction(deps, platform, action.transactionId!, now);
  } catch (error) {
    // The transaction ended on its own meanwhile (its quote expired): the approved action fails.
    const current = await loadTransaction(deps.db, platform.id, action.transactionId!);
    if (!failedOutcome(current)) {
      await deps.db.update(agentActions).set({ status: 'FAILED', counted: false, updatedAt: now }).where(eq(agentActions.id, action.id));
      throw error;
    }
    tx = current;
  }
  const failed = failedOutcome(tx);
  const update: Partial<AgentActionRow> = {
    transactionId: tx.id,
    status: failed ? 'FAILED' : 'APPROVED',
    counted: !failed,
    updatedAt: now,
  };
  if (failed) update.failureReason = tx.failureReason;
  await deps.db.update(agentActions).set(update).where(eq(agentActions.id, action.id));
  return actionView(deps.db, { ...action, ...update });
}

export async function loadAction(db: Db, platformId: string, id: string, agentId?: string): Promise<AgentActionRow> {
  const where = [eq(agentActions.id, id), eq(agentActions.platformId, platformId)];
  if (agentId) where.push(eq(agentActions.agentId, agentId));
  const row = await db.query.agentActions.findFirst({ where: and(...where) });
  if (!row) throw actionNotFound();
  return row;
}

/**
 * The platform approves a pending action: the current policy (allowed accounts, per-transaction limit) and
 * the spending limits are checked again now (a refusal is 403 and the action stays pending), then the
 * transaction executes; an expired quote or a shortfall ends the action FAILED.
 */
export async function approveAction(deps: PaymentDeps, platform: PlatformRow, action: AgentActionRow, now: number) {
  const { db } = deps;
  if (action.status !== 'PENDING_APPROVAL') throw notPending();
  const agent = await loadAgent(db, platform.id, action.agentId);
  // Accounts deleted meanwhile: the approval goes on and the execution fails, as for any approved payment.
  const d = await describe(db, agent, action.request as MoneyRequest).catch(() => null);
  const policyAmount = d
    ? (await decide(agent, d, (await usageOf(db, [agent.id], now)).get(agent.id)!, now, deps.rates)).policyAmount
    : action.policyAmount;
  const { day, month } = periodOf(now);
  const claimed = await db
    .update(agentActions)
    .set({ status: 'APPROVED', counted: true, policyAmount, day, month, updatedAt: now })
    .where(
      and(
        eq(agentActions.id, action.id),
        eq(agentActions.status, 'PENDING_APPROVAL'),
        withinLimits(agent.id, policyAmount, agent.policy.spendingLimits, now),
      ),
    )
    .returning({ id: agentActions.id });
  if (claimed.length === 0) {
    const current = await loadAction(db, platform.id, action.id);
    if (current.status !== 'PENDING_APPROVAL') throw notPending();
    await refusedByLimits(db, agent, policyAmount, now);
  }
  return finishApproved(deps, platform, { ...action, status: 'APPROVED', counted: true, policyAmount, day, month }, now);
}

/** The platform rejects a pending action: REJECTED with the reason, its transaction never executes. */
export async function rejectAction(
  deps: PaymentDeps,
  platform: PlatformRow,
  action: AgentActionRow,
  reason: string | undefined,
  now: number,
) {
  const [rejected] = await deps.db
    .update(agentActions)
    .set({ status: 'REJECTED', rejectionReason: reason ?? null, updatedAt: now })
    .where(and(eq(agentActions.id, action.id), eq(agentActions.status, 'PENDING_APPROVAL')))
    .returning();
  if (!rejected) throw notPending();
  if (rejected.transactionId) await rejectTransaction(deps, platform, rejected.transactionId, reason, now);
  return actionView(deps.db, rejected);
}

/** The agent action behind a transaction, if an agent asked for it (approve/reject then go through the action). */
export async function actionOfTransaction(db: Db, platformId: string, transactionId: string): Promise<AgentActionRow | undefined> {
  return db.query.agentActions.findFirst({
    where: and(eq(agentActions.platformId, platformId), eq(agentActions.transactionId, transactionId)),
  });
}

/** AgentAction (spec 2.6): `transaction` only once approved (and execution has begun), `rejectionReason` only when rejected. */
export async function actionView(db: Db, row: AgentActionRow) {
  return (await actionViews(db, [row]))[0]!;
}

async function actionViews(db: Db, rows: AgentActionRow[]) {
  const txIds = rows.map((r) => r.transactionId).filter((x): x is string => !!x);
  const quoteIds = rows.map((r) => r.quoteId).filter((x): x is string => !!x);
  const customerIds = [...new Set(rows.map((r) => r.customerId))];
  const [txs, qs, cs] = await db.batch([
    db
      .select()
      .from(transactions)
      .where(inArray(transactions.id, txIds.length ? txIds : [''])),
    db
      .select()
      .from(quotes)
      .where(inArray(quotes.id, quoteIds.length ? quoteIds : [''])),
    db
      .select({ id: customers.id, platformCustomerId: customers.platformCustomerId })
      .from(customers)
      .where(inArray(customers.id, customerIds.length ? customerIds : [''])),
  ]);
  const txById = new Map(txs.map((t) => [t.id, t]));
  const quoteById = new Map(qs.map((q) => [q.id, q]));
  const pcid = new Map(cs.map((c) => [c.id, c.platformCustomerId]));
  return rows.map((r) => {
    const tx = r.transactionId ? txById.get(r.transactionId) : undefined;
    const quote = r.quoteId ? quoteById.get(r.quoteId) : undefined;
    const view: Record<string, unknown> = {
      id: r.id,
      agentId: r.agentId,
      customerId: r.customerId,
      platformCustomerId: pcid.get(r.customerId) ?? '',
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
  });
}

export async function pageOfActions(db: Db, page: Page<AgentActionRow>) {
  return { ...page, data: await actionViews(db, page.data) };
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
    withTotal: true,
    order: 'desc',
  });
  return pageOfActions(db, page);
}

/** GET /agents/approvals: the platform's actions waiting for it. */
export async function listApprovals(
  db: Db,
  platformId: string,
  q: {
    agentId?: string;
    customerId?: string;
    startDate?: number;
    endDate?: number;
    sortOrder: 'asc' | 'desc';
    limit: number;
    cursor?: string;
  },
) {
  const where: SQL[] = [
    eq(agentActions.platformId, platformId),
    eq(agentActions.status, 'PENDING_APPROVAL'),
    isNotNull(agentActions.transactionId),
  ];
  if (q.agentId) where.push(eq(agentActions.agentId, q.agentId));
  if (q.customerId) where.push(eq(agentActions.customerId, q.customerId));
  if (q.startDate !== undefined) where.push(gte(agentActions.createdAt, q.startDate));
  if (q.endDate !== undefined) where.push(lte(agentActions.createdAt, q.endDate));
  const page = await keysetPage<AgentActionRow>(db, {
    table: agentActions,
    idColumn: agentActions.id,
    where: and(...where),
    limit: q.limit,
    cursor: q.cursor,
    withTotal: true,
    order: q.sortOrder,
  });
  return pageOfActions(db, page);
}
