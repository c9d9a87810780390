// A transaction's change drafted (its row and history, ledger movements, events, transitions) and made a Change; the plans' hops.
import { and, eq, inArray, ne, notExists } from 'drizzle-orm';
import { namedGuard, type Db } from '../db/client';
import type { Env, ServiceMode, Settings } from '../env';
import {
  endAccountId,
  internalAccounts,
  transactions,
  type InternalAccountRow,
  type StatusStep,
  type TransactionRow,
  type TransactionStatus,
} from '../db/schema';
import { ApiError, conflict } from '../http/errors';
import type { Logger } from '../http/log';
import { commitChange, unchangedSince, type Change } from '../http/change';
import { movementStatements, type Movement } from '../ledger/ledger';
import { type Statement } from '../db/client';
import { isInternalAccountId } from '../crypto/ids';
import { scheduleTransition, transitionMessages, type ScheduledTransition } from '../transitions/schedule';
import { eventMessages } from '../webhooks/outbox';
import { balanceEvent } from '../accounts/internal-service';
import { transactionEvents } from './events';
import { planOf, railOf, type Plan, type Rail, type Step } from './rail';
import { railInstruction } from './operator-rail';
import { rateSource, type RateSource } from './rates-source';
import { referenceFor } from './views';
import { appendedHistory } from './history';
import { depsOf, type Deps } from '../http/deps';

/** The service's own account between debit and payout; each currency's entries still sum to zero. */
const SETTLEMENT_ACCOUNT = 'Service:settlement';
/** Where real-time funding comes from: the payer outside the service who paid the quote's instructions. */
const REALTIME_PAYER = 'Funding:realtime';
/** Transition kinds (src/payments/transitions.ts). */
export const STEP_TRANSITION = 'payment.step';
export const EXPIRE_TRANSITION = 'quote.expire';

/** What money-moving code needs: the Deps of every service, the mid-market rates of the mode and its payment rail. */
export interface PaymentDeps extends Deps {
  rates: RateSource;
  rail: Rail;
}

/** One status a change moves the transaction into, with the fields and money that change with it. */
export interface Hop {
  status: TransactionStatus;
  set?: Partial<TransactionRow>;
  movements?: Movement[];
}

/** A transaction's change being built: its batch, the events and transitions it starts, the row it leaves. */
export interface Draft {
  statements: Statement[];
  eventIds: string[];
  transitions: ScheduledTransition[];
  /** The transaction as it is once the batch commits. */
  row: TransactionRow;
}

/** The guard that keeps a new transaction off an internal account closed since it was read (its customer deleted). */
const ACCOUNTS_OPEN = 'ACCOUNTS_OPEN';
function accountsOpen(db: Db, row: TransactionRow): Statement[] {
  const ids = [endAccountId(row.source), endAccountId(row.destination)].filter(
    (id): id is string => id !== null && isInternalAccountId(id),
  );
  if (ids.length === 0) return [];
  const closed = db
    .select({ id: internalAccounts.id })
    .from(internalAccounts)
    .where(and(inArray(internalAccounts.id, ids), ne(internalAccounts.status, 'ACTIVE')));
  return [namedGuard(db, ACCOUNTS_OPEN, notExists(closed))];
}

/**
 * The draft of a change. A change from version v updates the transaction first, only from v, appending the statuses
 * it enters to its history, and a guard fails the batch if it changed nothing: of several concurrent changes from v,
 * one commits, whole. Each status entered gets its webhook event(s); each internal account whose balance moves
 * gets a balance event.
 * `insert` writes the transaction itself, once, in the state its hops leave it (history from version 0): the
 * first hop, if any, is its initial status (with that hop's money), announced unless `quiet`.
 */
export async function buildChange(
  db: Db,
  base: TransactionRow,
  hops: Hop[],
  opts: {
    now: number;
    mode: ServiceMode;
    insert?: boolean;
    quiet?: boolean;
    transitions?: ScheduledTransition[];
    /** Rows of internal accounts the caller has just read (their balance events need no second read). */
    accounts?: InternalAccountRow[];
  },
): Promise<Draft> {
  const { now } = opts;
  const statements: Statement[] = [];
  const eventIds: string[] = [];
  const touched = new Set<string>();
  const steps: StatusStep[] = [];
  const step = (from: TransactionStatus | null, to: TransactionStatus) => steps.push([from, to, now]);
  const announce = (row: TransactionRow, refundChanged: boolean, refundOnly = false) => {
    const e = transactionEvents(db, row, refundChanged, now, refundOnly);
    statements.push(...e.statements);
    eventIds.push(...e.eventIds);
  };
  const move = (movements: Movement[] | undefined) => {
    for (const m of movements ?? []) {
      statements.push(...movementStatements(db, m));
      for (const id of [m.from, m.to]) if (isInternalAccountId(id)) touched.add(id);
    }
  };
  let row = base;
  let rest = hops;
  if (opts.insert) {
    const [first, ...others] = hops;
    row = first ? { ...base, ...first.set, status: first.status, version: 0 } : { ...base, version: 0 };
    rest = others;
    statements.push(...accountsOpen(db, row));
  }
  // The transaction's write goes here, once the hops have given the row its final state.
  const slot = statements.length;
  if (opts.insert) {
    step(null, row.status);
    move(hops[0]?.movements);
    if (!opts.quiet) announce(row, hops[0]?.set?.refund !== undefined);
  }
  const start = row;
  for (const hop of rest) {
    const next: TransactionRow = { ...row, ...hop.set, status: hop.status, version: row.version + 1, updatedAt: now };
    step(row.status, next.status);
    move(hop.movements);
    // A hop that keeps the status and settles a refund (the rail's, later) announces only the refund's end.
    const refundChanged = hop.set?.refund !== undefined;
    announce(next, refundChanged, refundChanged && next.status === row.status);
    row = next;
  }
  // A new transaction is written once, as the hops leave it; an existing one is updated from the version read.
  const head: Statement[] = [];
  if (opts.insert) {
    row = { ...row, history: steps };
    head.push(db.insert(transactions).values(row));
  } else if (rest.length > 0) {
    row = { ...row, history: start.history && [...start.history, ...steps] };
    const { id, history: _, ...fields } = row;
    head.push(
      db
        .update(transactions)
        .set({ ...fields, history: appendedHistory(steps, start.status) })
        .where(and(eq(transactions.id, id), eq(transactions.version, start.version))),
      unchangedSince(db),
    );
  }
  statements.splice(slot, 0, ...head);
  if (touched.size > 0) {
    // A balance event reads the balance inside the batch; the row only gives the account's other fields.
    const known = new Map((opts.accounts ?? []).map((a) => [a.id, a]));
    const missing = [...touched].filter((id) => !known.has(id));
    const read = missing.length ? await db.select().from(internalAccounts).where(inArray(internalAccounts.id, missing)) : [];
    // In id order, as the read returns them.
    const accounts = [...touched]
      .sort()
      .map((id) => known.get(id) ?? read.find((a) => a.id === id))
      .filter((a) => a !== undefined);
    for (const account of accounts) {
      const e = balanceEvent(db, account, opts.mode, now);
      statements.push(...e.statements);
      eventIds.push(e.eventId);
    }
  }
  const transitions = opts.transitions ?? [];
  statements.push(...transitions.map((t) => t.statement));
  return { statements, eventIds, transitions, row };
}

const accountClosed = () => conflict('An internal account of this payment is no longer active');

/**
 * The Change a route commits: the draft's batch with `before` first (rows of the caller that a guard must
 * see) and `after` it, its events' (and the caller's `eventIds`) and transitions' queue messages, and its answer. A deletion that closed
 * an account after it was read refuses it (409), as the read would have.
 */
export function changeOf<T>(
  draft: Draft,
  answer: { status: number; body: T },
  more: Partial<Pick<Change<T>, 'refusals' | 'conflict' | 'shortfall'>> & {
    before?: Statement[];
    after?: Statement[];
    eventIds?: string[];
  } = {},
): Change<T> {
  const { before = [], after = [], eventIds = [], refusals, ...rest } = more;
  return {
    statements: [...before, ...draft.statements, ...after],
    messages: [...eventMessages([...draft.eventIds, ...eventIds]), ...transitionMessages(draft.transitions)],
    ...answer,
    refusals: { [ACCOUNTS_OPEN]: accountClosed(), ...refusals },
    ...rest,
  };
}

type CommitResult = 'applied' | 'insufficient_funds' | 'conflict';

const LOST_RACE = new ApiError('CONFLICT', 'lost race');
const SHORTFALL = new ApiError('INSUFFICIENT_FUNDS', 'shortfall');

/**
 * The one way to commit a drafted change outside a request's answer (an answer to a webhook, a quote found
 * expired on the way, an outcome of the operator's rail, which re-reads its payment after a lost race): a
 * request's own change is returned to the runner (`changeOf`), which commits it with its Idempotency-Key's
 * record. `conflict`: another change of the same transaction committed first;
 * `insufficient_funds`: a debit would overdraw. In both nothing happened.
 */
export async function commitDraft(deps: Pick<Deps, 'db' | 'queue' | 'log'>, draft: Draft): Promise<CommitResult> {
  try {
    await commitChange(deps, changeOf(draft, { status: 200, body: null }, { conflict: LOST_RACE, shortfall: SHORTFALL }));
    return 'applied';
  } catch (error) {
    if (error === LOST_RACE) return 'conflict';
    if (error === SHORTFALL) return 'insufficient_funds';
    throw error;
  }
}

// --- money of a transaction ---

/** The two ends of a transaction as ledger accounts (internal account ids or pseudo accounts outside the service). */
function partiesOf(row: TransactionRow): { payer: string; payee: string } {
  const source = row.source ?? {};
  const payer =
    source.sourceType === 'REALTIME_FUNDING'
      ? REALTIME_PAYER
      : source.sourceType === 'UMA_ADDRESS'
        ? `Uma:${String(source.umaAddress)}`
        : String(source.accountId);
  const dest = row.destination;
  const payee = dest.destinationType === 'UMA_ADDRESS' ? `Uma:${String(dest.umaAddress)}` : String(dest.accountId);
  return { payer, payee };
}

function movement(row: TransactionRow, from: string, to: string, amount: number, currency: string, kind: string, now: number): Movement {
  return { platformId: row.platformId, from, to, amount, currency, reference: row.id, kind, now };
}

/** Initiating an outgoing payment takes the sent amount from the payer into settlement; incoming ones move nothing yet. */
function initiationMovements(row: TransactionRow, now: number): Movement[] {
  if (row.type === 'INCOMING') return [];
  const { payer } = partiesOf(row);
  const kind = payer === REALTIME_PAYER ? 'FUNDING' : 'DEBIT';
  return [movement(row, payer, SETTLEMENT_ACCOUNT, row.sentAmount!, row.sentCurrency!, kind, now)];
}

/** The hop of one plan step: its status, fields and movements (a refund PENDING moves nothing yet). */
export function stepHop(row: TransactionRow, step: Step, now: number): Hop {
  const { payer, payee } = partiesOf(row);
  const movements: Movement[] = [];
  const set: Partial<TransactionRow> = {};
  if (step.failureReason) set.failureReason = step.failureReason;
  if (step.settle) {
    set.settledAt = now;
    movements.push(
      row.type === 'INCOMING'
        ? movement(row, payer, payee, row.receivedAmount, row.receivedCurrency, 'CREDIT', now)
        : movement(row, SETTLEMENT_ACCOUNT, payee, row.receivedAmount, row.receivedCurrency, 'SETTLE', now),
    );
  }
  if (step.returned) movements.push(movement(row, payee, SETTLEMENT_ACCOUNT, row.receivedAmount, row.receivedCurrency, 'RETURN', now));
  if (step.refund && row.type === 'OUTGOING') {
    const done = step.refund.status === 'COMPLETED';
    set.refund = {
      reference: referenceFor('RFD', row.id),
      initiatedAt: now,
      ...(done ? { settledAt: now } : {}),
      status: step.refund.status,
      reason: step.refund.reason,
    };
    if (done) movements.push(movement(row, SETTLEMENT_ACCOUNT, payer, row.sentAmount!, row.sentCurrency!, 'REFUND', now));
  }
  return { status: step.status, set, movements };
}

/**
 * Hops for plan steps from `index` on: those due at once, up to the first delayed one, which comes back
 * as a transition to schedule (its due time counted from `now`).
 */
function stepsFrom(db: Db, row: TransactionRow, plan: Plan, index: number, now: number, mode: ServiceMode) {
  const hops: Hop[] = [];
  let current = row;
  let i = index;
  for (; i < plan.steps.length && plan.steps[i]!.afterMs === 0; i++) {
    const hop = stepHop(current, plan.steps[i]!, now);
    hops.push(hop);
    current = { ...current, ...hop.set, status: hop.status };
  }
  const transitions: ScheduledTransition[] = [];
  const next = plan.steps[i];
  if (next) {
    transitions.push(
      scheduleTransition(db, {
        platformId: row.platformId,
        subjectId: row.id,
        kind: STEP_TRANSITION,
        from: current.status,
        to: next.status,
        data: { scenario: row.scenario, index: i, mode },
        dueAt: now + next.afterMs,
        now,
      }),
    );
  }
  return { hops, transitions };
}

/**
 * The hops that initiate a transaction by its plan: a failure at once (nothing moves), or the in-flight
 * status with the initiating debit followed by any immediate steps; the first delayed step is scheduled.
 * `set` joins the first hop (e.g. an approval decision).
 */
export function initiation(db: Db, row: TransactionRow, now: number, mode: ServiceMode, set: Partial<TransactionRow> = {}) {
  const plan = planOf(row.scenario);
  if (plan.failsAtOnce) return { hops: [{ status: 'FAILED' as const, set: { ...set, failureReason: plan.failsAtOnce } }], transitions: [] };
  const first: Hop = { status: plan.inFlight, set, movements: initiationMovements(row, now) };
  const rest = stepsFrom(db, { ...row, ...set, status: plan.inFlight }, plan, 0, now, mode);
  // The operator's rail gets its instruction in the batch that debits (nothing is owed to it otherwise).
  const instruct = plan.instruct ? [railInstruction(db, row, plan.instruct, now)] : [];
  return { hops: [first, ...rest.hops], transitions: [...rest.transitions, ...instruct] };
}

/** The hop settling a refund the rail was asked for (still PENDING): COMPLETED gives the payer the money back. */
export function refundSettled(row: TransactionRow, status: 'COMPLETED' | 'FAILED', now: number): Hop {
  const { payer } = partiesOf(row);
  const refund = { ...row.refund!, status, ...(status === 'COMPLETED' ? { settledAt: now } : {}) };
  const movements =
    status === 'COMPLETED' ? [movement(row, SETTLEMENT_ACCOUNT, payer, row.sentAmount!, row.sentCurrency!, 'REFUND', now)] : [];
  return { status: row.status, set: { refund }, movements };
}

/** Whether the payer of an outgoing payment is outside the service (real-time funding): refunding it is the rail's work. */
export const paidFromOutside = (row: TransactionRow) => partiesOf(row).payer === REALTIME_PAYER;

/** The hops of a due plan step `index` (and the immediate ones after it), scheduling the next delayed one. */
export function dueStep(db: Db, row: TransactionRow, index: number, now: number, mode: ServiceMode) {
  const plan = planOf(row.scenario);
  const step = plan.steps[index];
  if (!step) return { hops: [], transitions: [] };
  const hop = stepHop(row, step, now);
  const after = stepsFrom(db, { ...row, ...hop.set, status: hop.status }, plan, index + 1, now, mode);
  return { hops: [hop, ...after.hops], transitions: after.transitions };
}

/** PaymentDeps of a request (or of background work). */
export function paymentDeps(c: { db: Db; env: Pick<Env, 'JOBS' | 'RAIL'>; log: Logger; settings: Settings }): PaymentDeps {
  return { ...depsOf(c), rates: rateSource(c.settings), rail: railOf(c.settings, c.env) };
}
