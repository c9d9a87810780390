// Agent actions: a money request of an agent as a Change: the payment awaiting approval (or, AUTO, carried
// out) from payments/approvals-service.ts, plus the policy check and the action's row; approve and reject.
import { and, eq, exists, isNull, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { loadTogether, namedGuard, type Db, type Loaded } from '../db/client';
import {
  agentActions,
  agents,
  customers,
  endAccountId,
  quoteCustomerId,
  quotes,
  transactions,
  type AgentActionRow,
  type AgentRow,
  type PlatformRow,
  type TransactionRow,
} from '../db/schema';
import { newId } from '../crypto/ids';
import { isFailedStatus } from '../db/enums';
import { answering, type Change } from '../http/change';
import { conflict, forbidden, notFound, retryableConflict } from '../http/errors';
import { eventStatements } from '../webhooks/outbox';
import {
  accountsOf,
  awaiting,
  awaitingDraft,
  executionDraft,
  outcomeOf,
  quoteChanged,
  rejectTransaction,
  requestLoads,
  type ApprovalDecider,
  type ApprovalRequest,
  type Outcome,
  type RequestLoaded,
} from '../payments/approvals-service';
import { quoteNotFound } from '../payments/quotes-service';
import { changeOf, type PaymentDeps } from '../payments/transaction-change';
import type { TransferLoaded } from '../payments/transfers-service';
import { awaitingApproval } from '../payments/views';
import { decide, periodLimits } from './policy';
import type { AgentPolicy } from './schema';
import { actionNotFound, actionViewOf, type ActionView } from './action-views';
import { agentNotFound, periodOf, requireAgentPermission, usageFrom, usageLoad, usageNow } from './service';

/** What an agent asks to do with money: execute a quote, transfer out or transfer in. */
export type MoneyRequest = ApprovalRequest;

const notPending = () => conflict('The action is not awaiting approval');
const agentDeleted = () => forbidden('The agent was deleted: its pending actions can only be rejected');

/** The policy permission each kind of money-moving request needs. */
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

/** What an agent's request reads, with the agent's usage, in one round trip (shared with an Idempotency-Key claim). */
export function actionLoads(db: Db, who: { platformId: SQL; agentId: SQL }, req: MoneyRequest, now: number | SQL) {
  return {
    ...requestLoads(db, who.platformId, req),
    usage: usageLoad(db, sql`(SELECT ${who.agentId})`, now),
    customer: customerRef(db, eq(customers.id, db.select({ id: agents.customerId }).from(agents).where(eq(agents.id, who.agentId)))),
  };
}

/** `actionLoads` of a known agent (an approval, after the agent was read). */
const agentActionLoads = (db: Db, agent: AgentRow, req: MoneyRequest, now: number) =>
  actionLoads(db, { platformId: sql`${agent.platformId}`, agentId: sql`${agent.id}` }, req, now);
type ActionLoaded = Loaded<ReturnType<typeof actionLoads>>;

/** The platform's id for a customer, as the action shows it. */
const customerRef = (db: Db, which: SQL | undefined) =>
  db.select({ platformCustomerId: customers.platformCustomerId }).from(customers).where(which).limit(1);

/** Amount, currency and accounts of a request, checked to be the agent's customer's (404 as unknown otherwise). */
function describe(agent: AgentRow, req: MoneyRequest, loaded: RequestLoaded) {
  if (req.type === 'EXECUTE_QUOTE') {
    const quote = 'quote' in loaded ? loaded.quote[0] : undefined;
    if (!quote || quoteCustomerId(quote) !== agent.customerId) throw quoteNotFound();
    const sourceAccountId = endAccountId(quote.source);
    return {
      amount: quote.totalSendingAmount,
      currency: quote.sendingCurrency,
      accountIds: sourceAccountId ? [sourceAccountId] : [],
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
    if (id === internalSlot && !ours.internal) throw notFound('INTERNAL_ACCOUNT_NOT_FOUND', 'Internal account not found');
    if (id !== internalSlot && !ours.external) throw notFound('EXTERNAL_ACCOUNT_NOT_FOUND', 'External account not found');
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
 * Guards that hold while spend already counted plus `amount` stays within the policy's period limits, each
 * named for its refusal. In the batch that counts the action, so concurrent requests cannot together pass a
 * limit (D1 runs a batch's statements one at a time).
 */
function limitGuards(db: Db, agent: AgentRow, amount: number, now: number) {
  const usage = usageNow(agent.id, now);
  const limits = periodLimits(agent.policy.spendingLimits, amount);
  return {
    statements: limits.map((l) => namedGuard(db, l.name, sql`${usage[l.usage]} + ${l.adds} <= ${l.limit}`)),
    refusals: Object.fromEntries(limits.map((l) => [l.name, l.refusal()])),
  };
}

/** The action as its transaction leaves it: APPROVED and counted, or FAILED (not counted) when the execution failed. */
function settled(action: AgentActionRow, tx: TransactionRow, now: number): AgentActionRow {
  const failed = isFailedStatus(tx.status);
  return {
    ...action,
    transactionId: tx.id,
    status: failed ? 'FAILED' : 'APPROVED',
    counted: !failed,
    failureReason: failed ? tx.failureReason : null,
    updatedAt: now,
  };
}

/**
 * An agent's money-moving request over what `actionLoads` read, as a Change answering the
 * action with `status`: refused (403, nothing recorded) by the policy; AUTO and within limits: counted and
 * executed at once, APPROVED (or FAILED if the execution fails, e.g. a shortfall); otherwise PENDING_APPROVAL
 * with its transaction awaiting the platform, and an AGENT_ACTION.PENDING_APPROVAL webhook. The transaction
 * carries `agentId`.
 */
export async function actionChange(
  deps: PaymentDeps,
  platform: PlatformRow,
  agent: AgentRow,
  req: MoneyRequest,
  loaded: ActionLoaded,
  now: number,
  status: number,
): Promise<Change<ActionView>> {
  const { db } = deps;
  const d = describe(agent, req, loaded);
  const decision = await decide(agent, d, usageFrom(loaded.usage, agent.id), now, deps.rates);
  const a = awaiting(platform, req, loaded, now, deps.rail, agent.id);
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
  const platformCustomerId = loaded.customer[0]?.platformCustomerId;
  if (decision.mode !== 'AUTO') {
    const draft = await awaitingDraft(db, a, now, deps.mode);
    const view = actionViewOf(action, draft.row, d.quote, platformCustomerId);
    const event = eventStatements(db, { platformId: platform.id, type: 'AGENT_ACTION.PENDING_APPROVAL', data: view, now });
    return changeOf(
      draft,
      { status, body: view },
      { before: [db.insert(agentActions).values(action)], after: event.statements, eventIds: [event.eventId], conflict: quoteChanged() },
    );
  }
  const executed = async (outcome: Outcome): Promise<Change<ActionView>> => {
    const draft = await awaitingDraft(db, a, now, deps.mode, outcome);
    const row = settled(action, draft.row, now);
    // Counted in the batch that records it, behind the limits' guards: the check and the spend are one step.
    const limits = row.counted ? limitGuards(db, agent, row.policyAmount, now) : { statements: [], refusals: {} };
    return changeOf(
      draft,
      { status, body: actionViewOf(row, draft.row, d.quote, platformCustomerId) },
      { before: [...limits.statements, db.insert(agentActions).values(row)], refusals: limits.refusals, conflict: quoteChanged() },
    );
  };
  // Not enough money: the approved execution fails and nothing moves.
  return { ...(await executed('run')), shortfall: await executed('failed') };
}

/**
 * Finds an agent action with its agent, transaction and quote in one load (an approval's authentication
 * batch): by its id under an agent, or by its transaction. `platformId` is SQL (see `RouteSpec.load`).
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
type PendingActionLoaded = Loaded<ReturnType<typeof pendingActionLoads>>;

/**
 * The platform approves a pending action: the agent's current policy is checked again now, as the agent's own
 * request would be (not deleted or paused, the permission granted, allowed accounts, per-transaction limit,
 * spending limits). A refusal is 403 and changes nothing: the action stays pending, to be rejected or approved
 * once the policy allows it. Then the transaction executes; an expired quote or a shortfall ends the action
 * FAILED. The batch that executes holds only while the agent is still as checked (a concurrent pause or
 * policy change makes it a retryable 409) and the limits still hold. One read, one batch.
 */
export async function approveAction(
  deps: PaymentDeps,
  platform: PlatformRow,
  found: PendingActionLoaded,
  now: number,
): Promise<Change<Decided>> {
  const { db } = deps;
  const [action, agent, tx] = [found.action[0], found.agent[0], found.tx[0]];
  if (!action) throw agent ? actionNotFound() : agentNotFound();
  if (action.status !== 'PENDING_APPROVAL' || !tx) throw notPending();
  const pending = stillPending(db, action.id);
  if (!awaitingApproval(tx)) {
    // The transaction ended on its own meanwhile (its quote expired): the approved action fails.
    if (!isFailedStatus(tx.status)) throw notPending();
    const failed = settled(action, tx, now);
    const { id, ...fields } = failed;
    return {
      statements: [pending.guard, db.update(agentActions).set(fields).where(eq(agentActions.id, id))],
      messages: [],
      status: 200,
      body: { view: actionViewOf(failed, tx, found.quote[0], found.customer[0]?.platformCustomerId), tx },
      refusals: pending.refusals,
    };
  }
  if (!agent) throw agentDeleted();
  requireActing(agent, action.type);
  const request = action.request as MoneyRequest;
  const loaded = await loadTogether(db, agentActionLoads(db, agent, request, now));
  // Accounts deleted meanwhile: the approval goes on and the execution fails, as for any approved payment.
  let d: ReturnType<typeof describe> | null = null;
  try {
    d = describe(agent, request, loaded);
  } catch {
    d = null;
  }
  const policyAmount = d ? (await decide(agent, d, usageFrom(loaded.usage, agent.id), now, deps.rates)).policyAmount : action.policyAmount;
  const { day, month } = periodOf(now);
  const accounts = accountsOf(loaded);
  const executed = async (outcome: Outcome): Promise<Change<Decided>> => {
    const draft = await executionDraft(deps, tx, outcome, now, accounts);
    const next = settled({ ...action, policyAmount, day, month }, draft.row, now);
    const { id, ...fields } = next;
    // Paused, deleted or its policy changed since it was checked: a retry checks the policy as it is now.
    const unchanged = namedGuard(db, AGENT_UNCHANGED, agentAsRead(db, agent));
    const limits = next.counted ? limitGuards(db, agent, policyAmount, now) : { statements: [], refusals: {} };
    return changeOf(
      draft,
      { status: 200, body: { view: actionViewOf(next, draft.row, found.quote[0], loaded.customer[0]?.platformCustomerId), tx: draft.row } },
      {
        before: [pending.guard, unchanged, ...limits.statements, db.update(agentActions).set(fields).where(eq(agentActions.id, id))],
        refusals: {
          ...pending.refusals,
          [AGENT_UNCHANGED]: retryableConflict('The agent changed while the action was being approved; retry'),
          ...limits.refusals,
        },
        conflict: notPending(),
      },
    );
  };
  return { ...(await executed(outcomeOf(platform, tx, loaded, now))), shortfall: await executed('failed') };
}

/** An action decided by the platform, and its transaction as the decision leaves it. */
export interface Decided {
  view: ActionView;
  tx: TransactionRow;
}

const AGENT_UNCHANGED = 'AGENT_UNCHANGED';
const ACTION_PENDING = 'ACTION_PENDING';

/** A guard that holds while the action still awaits approval (a concurrent decision makes this one 409). */
function stillPending(db: Db, actionId: string) {
  const pending = db
    .select({ one: sql`1` })
    .from(agentActions)
    .where(and(eq(agentActions.id, actionId), eq(agentActions.status, 'PENDING_APPROVAL')));
  return { guard: namedGuard(db, ACTION_PENDING, exists(pending)), refusals: { [ACTION_PENDING]: notPending() } };
}

/** The platform rejects a pending action: REJECTED with the reason, its transaction never executes. One batch. */
export async function rejectAction(
  deps: PaymentDeps,
  found: PendingActionLoaded,
  reason: string | undefined,
  now: number,
): Promise<Change<Decided>> {
  const { db } = deps;
  const [action, tx] = [found.action[0], found.tx[0]];
  if (!action) throw actionNotFound();
  if (action.status !== 'PENDING_APPROVAL' || !tx) throw notPending();
  const rejected: AgentActionRow = { ...action, status: 'REJECTED', rejectionReason: reason ?? null, updatedAt: now };
  const pending = stillPending(db, action.id);
  const change = await rejectTransaction(deps, tx, reason, now);
  return {
    ...answering(change, 200, (row) => ({
      view: actionViewOf(rejected, row, found.quote[0], found.customer[0]?.platformCustomerId),
      tx: row,
    })),
    statements: [
      pending.guard,
      db
        .update(agentActions)
        .set({ status: 'REJECTED', rejectionReason: reason ?? null, updatedAt: now })
        .where(eq(agentActions.id, action.id)),
      ...change.statements,
    ],
    refusals: { ...change.refusals, ...pending.refusals },
  };
}

/** Decides a transaction that is an agent's pending action through the action (POST /transactions/{id}/approve|reject). */
export const agentActionDecider: ApprovalDecider = {
  loads: (db, platformId, transactionId) => pendingActionLoads(db, platformId, { transactionId }),
  approve: (deps, platform, loaded, now) => {
    const found = loaded as PendingActionLoaded;
    return found.action[0] && approveAction(deps, platform, found, now).then((c) => answering(c, 200, (d) => d.tx));
  },
  reject: (deps, loaded, reason, now) => {
    const found = loaded as PendingActionLoaded;
    return found.action[0] && rejectAction(deps, found, reason, now).then((c) => answering(c, 200, (d) => d.tx));
  },
};
