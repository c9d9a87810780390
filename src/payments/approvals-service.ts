// Payments awaiting the platform's approval: a request is read in one round trip, checked, and recorded
// awaiting the platform (or carried out at once); approving carries it out, rejecting ends it. Each is a
// draft a caller (an agent's action) adds its rows to, or a Change the route commits.
import { sql, type SQL } from 'drizzle-orm';
import { type Approval, type InternalAccountRow, type PlatformRow, type TransactionRow } from '../db/schema';
import { loadTogether, type Db, type Loaded, type Loads, type Statement } from '../db/client';
import type { ServiceMode } from '../env';
import type { Rail } from './rail';
import type { Change } from '../http/change';
import { conflict, errorBody, invalidFields, retryableConflict } from '../http/errors';
import { checkExecutable, quoteLoads, quoteNotFound, quoteAccounts } from './quotes-service';
import { buildChange, changeOf, initiation, type Draft, type Hop, type PaymentDeps } from './transaction-change';
import { checkedPair, transferLoads, transferRow, type Direction, type Pair } from './transfers-service';
import { awaitingApproval } from './views';
import { decisionChange, lateDecision, missingReceiverFields, type Decision } from './incoming-approval';

/** What an agent (or any caller needing the platform's approval) asks to do. */
export type ApprovalRequest =
  | { type: 'EXECUTE_QUOTE'; quoteId: string }
  | { type: 'TRANSFER_OUT' | 'TRANSFER_IN'; sourceAccountId: string; destinationAccountId: string; amount: number };

const notAwaiting = () => conflict('The transaction is not awaiting platform approval', 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');
const directionOf = (type: 'TRANSFER_OUT' | 'TRANSFER_IN'): Direction => (type === 'TRANSFER_OUT' ? 'OUT' : 'IN');

/**
 * What a request reads, named, for one round trip shared with the caller's own loads: for a quote, the quote
 * with its transaction and source account; for a transfer, both accounts and the holder.
 */
export function requestLoads(db: Db, platformId: SQL, request: ApprovalRequest) {
  return request.type === 'EXECUTE_QUOTE'
    ? quoteLoads(db, platformId, request.quoteId)
    : transferLoads(db, platformId, directionOf(request.type), request);
}
export type RequestLoaded = Loaded<ReturnType<typeof requestLoads>>;

/** A request, checked, ready to wait for approval: the change recording it starts from `base` with `hop`. */
interface Awaiting {
  base: TransactionRow;
  /** A transfer is a new transaction; a quote waits in its own. */
  insert: boolean;
  hop: Hop;
  /** The internal accounts whose balances the execution moves (read already: their balance events need no read). */
  accounts: InternalAccountRow[];
  /** Amount and currency, for a caller's policy (the sending side). */
  amount: number;
  currency: string;
}

/**
 * Checks a request against what `requestLoads` read. A quote must be executable now and not paid from an
 * embedded wallet, whose money moves only under a session signature; a transfer's accounts must be found,
 * active and of one holder. `agentId` is shown on the transaction.
 */
export function awaiting(
  platform: PlatformRow,
  request: ApprovalRequest,
  loaded: RequestLoaded,
  now: number,
  rail: Rail,
  agentId: string | null,
): Awaiting {
  if (request.type !== 'EXECUTE_QUOTE') {
    const pair = checkedPair(platform, directionOf(request.type), loaded as Loaded<ReturnType<typeof transferLoads>>);
    return awaitingTransfer(platform, request, pair, now, rail, agentId);
  }
  const { quote: found, quoteTx, source } = loaded as Loaded<ReturnType<typeof quoteLoads>>;
  const [quote, tx] = [found[0], quoteTx[0]];
  if (!quote || !tx) throw quoteNotFound();
  checkExecutable(quote, tx, now, 'execute');
  rail.ready(tx.scenario);
  if (source[0]?.type === 'EMBEDDED_WALLET') {
    throw invalidFields('request body', [
      { field: 'quoteId', message: 'Quotes paid from an EMBEDDED_WALLET are executed with a signed retry, not by platform approval' },
    ]);
  }
  const approval: Approval = { action: { type: 'EXECUTE_QUOTE', quoteId: quote.id }, state: 'PENDING_APPROVAL', requestedAt: now };
  return {
    base: tx,
    insert: false,
    hop: { status: 'PENDING', set: { approval, agentId: agentId ?? tx.agentId } },
    accounts: quoteAccounts(loaded as Loaded<ReturnType<typeof quoteLoads>>),
    amount: quote.totalSendingAmount,
    currency: quote.sendingCurrency,
  };
}

function awaitingTransfer(
  platform: PlatformRow,
  request: Extract<ApprovalRequest, { type: 'TRANSFER_OUT' | 'TRANSFER_IN' }>,
  pair: Pair,
  now: number,
  rail: Rail,
  agentId: string | null,
): Awaiting {
  const approval: Approval = {
    action: {
      type: request.type,
      sourceAccountId: request.sourceAccountId,
      destinationAccountId: request.destinationAccountId,
      amount: request.amount,
      currency: pair.internal.currency,
    },
    state: 'PENDING_APPROVAL',
    requestedAt: now,
  };
  const row = transferRow(platform, directionOf(request.type), pair, request.amount, rail, now);
  return {
    base: { ...row, approval, agentId },
    insert: true,
    hop: { status: 'PENDING' },
    accounts: [pair.internal],
    amount: request.amount,
    currency: pair.internal.currency,
  };
}

/** Answered when the quote a request waits in changed after it was read. */
export const quoteChanged = () => retryableConflict('The quote changed concurrently; retry', 'QUOTE_NOT_PENDING');

/** How an approved action ends: it runs, its quote expired meanwhile, or its accounts can no longer take it (or a shortfall). */
export type Outcome = 'run' | 'expired' | 'failed';

/** The hops that carry out the approved action of a transaction awaiting approval, with the decision recorded on the first. */
function execution(db: Db, tx: TransactionRow, now: number, mode: ServiceMode, outcome: Outcome) {
  const approval: Approval = { ...tx.approval!, state: 'APPROVED', decidedAt: now };
  const action = tx.approval!.action;
  if (outcome === 'expired')
    return { hops: [{ status: 'EXPIRED', set: { approval, failureReason: 'QUOTE_EXPIRED' } }] as Hop[], transitions: [] };
  if (outcome === 'failed') {
    const failureReason =
      action.type === 'EXECUTE_QUOTE' ? 'QUOTE_EXECUTION_FAILED' : action.type === 'TRANSFER_OUT' ? 'OFFRAMP_FAILED' : 'PAY_REQUEST_FAILED';
    return { hops: [{ status: 'FAILED', set: { approval, failureReason } }] as Hop[], transitions: [] };
  }
  return initiation(db, tx, now, mode, { approval });
}

/**
 * The draft recording `a` as awaiting approval; given an outcome, the action is approved and carried out
 * in the same batch (an agent's AUTO action).
 */
export async function awaitingDraft(db: Db, a: Awaiting, now: number, mode: ServiceMode, outcome?: Outcome): Promise<Draft> {
  const waiting: TransactionRow = { ...a.base, ...a.hop.set, status: 'PENDING', version: a.insert ? 0 : a.base.version + 1 };
  const run = outcome ? execution(db, waiting, now, mode, outcome) : { hops: [], transitions: [] };
  return buildChange(db, a.base, [a.hop, ...run.hops], {
    now,
    mode,
    insert: a.insert,
    transitions: run.transitions,
    accounts: a.accounts,
  });
}

/**
 * What deciding an approved action reads now, in one round trip: the loads of its request (the quote may
 * have expired, the accounts been closed). The transaction must be awaiting a quote or transfer approval.
 */
function executionLoads(db: Db, platformId: SQL, tx: TransactionRow) {
  const action = tx.approval!.action;
  if (action.type === 'INCOMING_PAYMENT') throw new Error('an incoming payment is decided, not executed');
  return requestLoads(db, platformId, action);
}

/** Whether an approved action can still run, by what `executionLoads` read. */
export function outcomeOf(platform: PlatformRow, tx: TransactionRow, loaded: RequestLoaded, now: number): Outcome {
  const action = tx.approval!.action;
  if (action.type === 'EXECUTE_QUOTE') {
    const quote = (loaded as Loaded<ReturnType<typeof quoteLoads>>).quote[0];
    return quote && now >= quote.expiresAt ? 'expired' : 'run';
  }
  if (action.type === 'INCOMING_PAYMENT') throw new Error('an incoming payment is decided, not executed');
  try {
    checkedPair(platform, directionOf(action.type), loaded as Loaded<ReturnType<typeof transferLoads>>);
    return 'run';
  } catch {
    // The accounts were closed or deleted meanwhile: that fails the approved transfer.
    return 'failed';
  }
}

/** The draft carrying out the approved action of `tx` (awaiting approval, at its read version) by `outcome`. */
export function executionDraft(deps: PaymentDeps, tx: TransactionRow, outcome: Outcome, now: number, accounts: InternalAccountRow[]) {
  if (outcome === 'run') deps.rail.ready(tx.scenario);
  const run = execution(deps.db, tx, now, deps.mode, outcome);
  return buildChange(deps.db, tx, run.hops, { now, mode: deps.mode, transitions: run.transitions, accounts });
}

/**
 * An incoming payment's decision through the API (after the platform answered its approval request 202, or
 * before answering at all). Once its window has closed the payment fails as the deadline would have failed
 * it, and the late decision is 409.
 */
async function decideIncoming(deps: PaymentDeps, tx: TransactionRow, decision: Decision, now: number): Promise<Change<TransactionRow>> {
  const late = lateDecision(tx, now);
  const draft = await decisionChange(deps.db, tx, late ?? decision, now, deps.mode);
  const answer = late
    ? {
        status: 409,
        body: errorBody(conflict('The approval window has closed; the payment failed', 'TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL')),
      }
    : { status: 200, body: draft.row };
  // A late decision commits the failure and answers 409 (typed loosely: the answer is an error body then).
  return changeOf(draft, answer as { status: number; body: TransactionRow }, { conflict: notAwaiting() });
}

/**
 * POST /transactions/{id}/approve of `tx` (read by the caller): performs the deferred action now, re-checking
 * what may have changed since it was requested. An incoming payment is credited (`receiverCustomerInfo` must
 * hold the mandatory fields the sender requested: 400 otherwise). The approval itself always succeeds; the
 * execution may not: an expired quote ends EXPIRED (QUOTE_EXPIRED), a shortfall ends FAILED
 * (QUOTE_EXECUTION_FAILED for quotes, OFFRAMP_FAILED for transfers out). Anything not awaiting approval is 409.
 */
export async function approveTransaction(
  deps: PaymentDeps,
  platform: PlatformRow,
  tx: TransactionRow,
  now: number,
  receiverCustomerInfo?: Record<string, unknown>,
): Promise<Change<TransactionRow>> {
  if (!awaitingApproval(tx)) throw notAwaiting();
  if (tx.approval!.action.type === 'INCOMING_PAYMENT') {
    const missing = missingReceiverFields(tx.approval!, receiverCustomerInfo);
    if (missing.length)
      throw invalidFields(
        'request body',
        missing.map((f) => ({
          field: `receiverCustomerInfo.${f}`,
          message: 'Requested by the sender (requestedReceiverCustomerInfoFields)',
        })),
      );
    return decideIncoming(deps, tx, { approve: true, ...(receiverCustomerInfo ? { receiverCustomerInfo } : {}) }, now);
  }
  const loaded = await loadTogether(deps.db, executionLoads(deps.db, sql`${platform.id}`, tx));
  return executionChange(deps, tx, outcomeOf(platform, tx, loaded, now), now, accountsOf(loaded));
}

/** Carries out an approved action; a shortfall fails the execution instead (nothing moves). Answers the transaction. */
async function executionChange(deps: PaymentDeps, tx: TransactionRow, outcome: Outcome, now: number, accounts: InternalAccountRow[]) {
  const failed = await executionDraft(deps, tx, 'failed', now, accounts);
  const draft = await executionDraft(deps, tx, outcome, now, accounts);
  return changeOf(
    draft,
    { status: 200, body: draft.row },
    { conflict: notAwaiting(), shortfall: changeOf(failed, { status: 200, body: failed.row }, { conflict: notAwaiting() }) },
  );
}

/** The internal accounts an execution moves, from what `requestLoads` read. */
export function accountsOf(loaded: RequestLoaded): InternalAccountRow[] {
  return 'quote' in loaded ? quoteAccounts(loaded) : loaded.internal.slice(0, 1);
}

/** POST /transactions/{id}/reject: cancels the deferred action; nothing moves. The transaction ends REJECTED. */
export async function rejectTransaction(
  deps: PaymentDeps,
  tx: TransactionRow,
  reason: string | undefined,
  now: number,
): Promise<Change<TransactionRow>> {
  if (!awaitingApproval(tx)) throw notAwaiting();
  if (tx.approval!.action.type === 'INCOMING_PAYMENT')
    return decideIncoming(deps, tx, { approve: false, ...(reason ? { reason } : {}) }, now);
  const approval: Approval = { ...tx.approval!, state: 'REJECTED', decidedAt: now, ...(reason ? { reason } : {}) };
  const draft = await buildChange(deps.db, tx, [{ status: 'REJECTED', set: { approval } }], { now, mode: deps.mode });
  return changeOf(draft, { status: 200, body: draft.row }, { conflict: notAwaiting() });
}

/**
 * Decides a transaction that a caller above payments asked for (an agent's pending action, whose policy and
 * limits are checked again): the router passes it to the transaction routes, as it passes answer handlers in.
 */
export interface ApprovalDecider {
  /** What deciding reads, with the transaction itself as `tx`, in the authentication batch. */
  loads(db: Db, platformId: SQL, transactionId: string): Loads & { tx: Statement };
  /** The decision's Change when the transaction is the decider's; undefined: payments decides it. */
  approve(
    deps: PaymentDeps,
    platform: PlatformRow,
    loaded: Record<string, unknown>,
    now: number,
  ): Promise<Change<TransactionRow>> | undefined;
  reject(
    deps: PaymentDeps,
    loaded: Record<string, unknown>,
    reason: string | undefined,
    now: number,
  ): Promise<Change<TransactionRow>> | undefined;
}
