// Incoming payments awaiting the platform's decision: the approval request, its answer, the deadline.
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { ServiceMode } from '../env';
import { transactions, webhookDeliveries, type Approval, type FailureReason, type TransactionRow } from '../db/schema';
import { currencyInfo } from '../common/currencies';
import { scheduleTransition, dispatchTransitions, type ScheduledTransition, type TransitionHandler } from '../transitions/schedule';
import type { AnswerHandler } from '../webhooks/delivery';
import { deliveriesAbout, platformOffsetSql } from '../webhooks/outbox';
import { buildChange, commitDraft, dueStep, type Hop } from './transaction-change';
import { awaitingApproval } from './views';
import type { Deps } from '../http/deps';

/**
 * Incoming UMA payments wait for the receiving platform's decision (reference `webhooks.incoming-payment`)
 * when it has a webhookEndpoint: their INCOMING_PAYMENT.PENDING event is an approval request, and the answer
 * decides. 200 (or any 2xx but 202) approves, with `receiverCustomerInfo` when receiver fields were asked
 * for; 202 means the platform decides through POST /transactions/{id}/approve or /reject within
 * ASYNC_DECISION_MS; 403 rejects (its `reason` kept); 422 rejects for the counterparty fields it names
 * (`requiredFields`); 409 says the event was already handled, so nothing is applied twice. Anything else
 * (5xx, no answer) is retried like any delivery until ANSWER_WINDOW_MS after the payment arrived.
 * Nothing moves before approval: an approved payment is credited at once (COMPLETED), a rejected one ends
 * REJECTED, an undecided one FAILED (PAYMENT_APPROVAL_TIMED_OUT after a 202, else
 * PAYMENT_APPROVAL_WEBHOOK_ERROR), and none of them was ever credited.
 */

/** After a 202, how long the platform has to approve or reject through the API. */
export const ASYNC_DECISION_MS = 5_000;
/** How long the approval request is retried (5xx, no answer) before the payment fails undecided. */
export const ANSWER_WINDOW_MS = 60_000;
const DEADLINE_TRANSITION = 'incoming.approval-deadline';
const REASON_CHARS = 1_000;

type Fields = NonNullable<Approval['requestedFields']>;

/**
 * The receiver fields the sender's side asks for: the currency's counterparty fields that customer
 * registration does not already give the service (`providerRequiredCounterpartyCustomerFields` minus
 * `providerRequiredCustomerFields`), each mandatory.
 */
function requestedReceiverFields(currencyCode: string): Fields {
  const info = currencyInfo(currencyCode);
  return info.counterpartyFields.filter((f) => !info.customerFields.includes(f)).map((name) => ({ name, mandatory: true }));
}

/**
 * The approval an incoming payment starts with, and the deadline that fails it if nobody decides. `asked`:
 * receiver fields the sender's side asks for on top of the currency's (a field named in both keeps the
 * currency's mandatory flag).
 */
export function incomingApproval(
  db: Db,
  row: TransactionRow,
  now: number,
  asked: Fields = [],
): { approval: Approval; deadline: ScheduledTransition } {
  const byCurrency = requestedReceiverFields(row.receivedCurrency);
  const requested = [...byCurrency, ...asked.filter((f) => !byCurrency.some((c) => c.name === f.name))];
  const approval: Approval = {
    action: { type: 'INCOMING_PAYMENT' },
    state: 'PENDING_APPROVAL',
    requestedAt: now,
    decideBy: now + ANSWER_WINDOW_MS,
    ...(requested.length ? { requestedFields: requested } : {}),
  };
  return { approval, deadline: deadline(db, row, approval.decideBy!, now) };
}

function deadline(db: Db, row: TransactionRow, dueAt: number, now: number) {
  return scheduleTransition(db, { platformId: row.platformId, subjectId: row.id, kind: DEADLINE_TRANSITION, from: 'PENDING', dueAt, now });
}

/** Whether `row` waits for the receiving platform's decision on an incoming payment. */
function awaitingIncomingDecision(row: TransactionRow): boolean {
  return awaitingApproval(row) && row.approval!.action.type === 'INCOMING_PAYMENT';
}

/** The mandatory requested fields that `info` lacks. */
export function missingReceiverFields(approval: Approval, info: Record<string, unknown> | undefined): string[] {
  return (approval.requestedFields ?? [])
    .filter((f) => f.mandatory && (info?.[f.name] === undefined || info[f.name] === ''))
    .map((f) => f.name);
}

export type Decision =
  | { approve: true; receiverCustomerInfo?: Record<string, unknown> }
  | { approve: false; reason?: string; requiredFields?: string[] }
  | { approve: false; failureReason: FailureReason };

/**
 * The change a decision makes: approval credits the receiver at once (the payment's plan step, COMPLETED);
 * an approval lacking a mandatory requested field fails the payment (MISSING_MANDATORY_PAYEE_DATA); a
 * rejection ends REJECTED; an undecided payment ends FAILED. Built on the row's version, so of two
 * decisions only the first commits.
 */
export async function decisionChange(db: Db, tx: TransactionRow, decision: Decision, now: number, mode: ServiceMode) {
  const base = tx.approval!;
  let hops: Hop[];
  let row = tx;
  if (decision.approve) {
    const approval: Approval = {
      ...base,
      state: 'APPROVED',
      decidedAt: now,
      ...(decision.receiverCustomerInfo ? { receiverCustomerInfo: decision.receiverCustomerInfo } : {}),
    };
    row = { ...tx, approval };
    hops = missingReceiverFields(base, decision.receiverCustomerInfo).length
      ? [{ status: 'FAILED', set: { failureReason: 'MISSING_MANDATORY_PAYEE_DATA' } }]
      : dueStep(db, row, 0, now, mode).hops;
  } else if ('failureReason' in decision) {
    hops = [{ status: 'FAILED', set: { approval: { ...base, state: 'REJECTED', decidedAt: now }, failureReason: decision.failureReason } }];
  } else {
    const approval: Approval = {
      ...base,
      state: 'REJECTED',
      decidedAt: now,
      ...(decision.reason ? { reason: decision.reason.slice(0, REASON_CHARS) } : {}),
      ...(decision.requiredFields ? { requiredFields: decision.requiredFields } : {}),
    };
    hops = [{ status: 'REJECTED', set: { approval } }];
  }
  return buildChange(db, row, hops, { now, mode });
}

async function loadById(db: Db, platformId: string, id: unknown): Promise<TransactionRow | undefined> {
  if (typeof id !== 'string') return undefined;
  return db.query.transactions.findFirst({ where: and(eq(transactions.id, id), eq(transactions.platformId, platformId)) });
}

function jsonBody(body: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(body);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What an answer to the approval request decides; null for one that decides nothing (retried, or 409). */
function answerDecision(status: number, body: string): Decision | 'accepted' | null {
  const json = jsonBody(body);
  if (status === 202) return 'accepted';
  if (status >= 200 && status < 300) {
    const info = json.receiverCustomerInfo;
    return {
      approve: true,
      ...(info && typeof info === 'object' && !Array.isArray(info) ? { receiverCustomerInfo: info as Record<string, unknown> } : {}),
    };
  }
  if (status === 403) return { approve: false, ...(typeof json.reason === 'string' && json.reason ? { reason: json.reason } : {}) };
  if (status === 422) {
    const fields = Array.isArray(json.requiredFields)
      ? json.requiredFields.filter((f): f is string => typeof f === 'string').slice(0, 32)
      : [];
    const reason = fields.length
      ? `Counterparty information missing: ${fields.join(', ')}`
      : typeof json.message === 'string'
        ? json.message
        : undefined;
    return { approve: false, ...(reason ? { reason } : {}), ...(fields.length ? { requiredFields: fields } : {}) };
  }
  return null;
}

/** The decision an answer to an incoming payment's approval request carries. */
export const incomingPaymentAnswer: AnswerHandler = {
  async apply(deps, event, answer, now) {
    const decision = answerDecision(answer.status, answer.body);
    if (decision === null) return false;
    const tx = await loadById(deps.db, event.platformId, (event.data as { id?: unknown }).id);
    // An informational PENDING event (a transfer in), or a payment already decided: the answer changes nothing.
    if (!tx || !awaitingIncomingDecision(tx)) return tx?.approval?.action.type === 'INCOMING_PAYMENT';
    if (decision === 'accepted') {
      await acceptAsync(deps, tx, now);
      return true;
    }
    // A concurrent decision (the API, the deadline) that committed first wins; this one is dropped.
    await commitDraft(deps, await decisionChange(deps.db, tx, decision, now, deps.mode));
    return true;
  },
};

/** A 202: the platform decides through the API within ASYNC_DECISION_MS, else the deadline fails the payment. */
async function acceptAsync(deps: Deps, tx: TransactionRow, now: number) {
  const approval: Approval = { ...tx.approval!, acceptedAt: now, decideBy: now + ASYNC_DECISION_MS };
  const due = deadline(deps.db, tx, approval.decideBy!, now);
  // Conditional on the version read: a decision committed meanwhile keeps its approval as it is.
  await deps.db.batch([
    deps.db
      .update(transactions)
      .set({ approval })
      .where(and(eq(transactions.id, tx.id), eq(transactions.version, tx.version))),
    due.statement,
  ]);
  await dispatchTransitions(deps.queue, [due], deps.log);
}

/** The failure of a payment whose decision window has closed at `now`, or null while it is open. */
export function lateDecision(tx: TransactionRow, now: number): Decision | null {
  if (now < (tx.approval!.decideBy ?? Number.POSITIVE_INFINITY)) return null;
  return {
    approve: false,
    failureReason: tx.approval!.acceptedAt !== undefined ? 'PAYMENT_APPROVAL_TIMED_OUT' : 'PAYMENT_APPROVAL_WEBHOOK_ERROR',
  };
}

/** A payment's INCOMING_PAYMENT.PENDING deliveries still pending: what its deadline stops retrying. */
export const pendingApprovalRequests = (tx: Pick<TransactionRow, 'platformId' | 'id'>): SQL =>
  and(deliveriesAbout(tx.platformId, tx.id, 'INCOMING_PAYMENT.PENDING'), sql`+${webhookDeliveries.status} = 'PENDING'`)!;

/**
 * The deadline: a payment still undecided at `decideBy` fails (TIMED_OUT after a 202, else WEBHOOK_ERROR),
 * and its approval request stops being retried.
 */
const approvalDeadline: TransitionHandler = async (ctx) => {
  const tx = await loadById(ctx.db, ctx.row.platformId, ctx.row.subjectId);
  const late = tx && awaitingIncomingDecision(tx) ? lateDecision(tx, ctx.now) : null;
  if (!tx || !late) return { statements: [] };
  // Nothing moves, so the mode (which only shapes balance events) does not matter here.
  const change = await decisionChange(ctx.db, tx, late, ctx.now, 'sandbox');
  const stop = ctx.db
    .update(webhookDeliveries)
    .set({
      status: 'FAILED',
      lastError: 'No decision before the approval deadline',
      nextAttemptAt: ctx.now,
      updatedAt: ctx.now,
      sweepAt: sql`${ctx.now} - ${platformOffsetSql(webhookDeliveries.platformId)}`,
    })
    // Its approval requests still pending (`+`: not the platform's status index either).
    .where(pendingApprovalRequests(tx));
  return { statements: [...change.statements, stop], eventIds: change.eventIds };
};

/** The approval deadline of an incoming payment. */
export const incomingApprovalTransitions = { [DEADLINE_TRANSITION]: approvalDeadline };
