// What the operator's rail reports (POST /providers/rail/outcomes), applied to its payment exactly once.
import { and, eq, sql } from 'drizzle-orm';
import { loadTogether } from '../db/client';
import type { Settings } from '../env';
import { transactionQuoteId, transactions, type TransactionRow } from '../db/schema';
import { ApiError, conflict, notFound, retryableConflict } from '../http/errors';
import { commitChange } from '../http/change';
import { authenticateOutcome, PAYMENT_RAIL } from '../providers/channel';
import { isOperatorScenario, railInstruction } from './operator-rail';
import { quoteLoads, quotePaymentChange } from './quotes-service';
import { buildChange, commitDraft, paidFromOutside, refundSettled, stepHop, type Hop, type PaymentDeps } from './transaction-change';
import type { Step } from './rail';
import type { RailOutcome, RailOutcomeResult } from './rail-schema';
import { awaitingApproval } from './views';

/**
 * An outcome is a conditional state change: read the payment, decide what the outcome changes from where it
 * is, and commit that (status, ledger postings, webhook events, a refund instruction) in one batch that holds
 * only while the payment is still at the version read. Of two deliveries of one outcome, or of two outcomes
 * racing, one commits and the other re-reads and finds the payment moved on. So every outcome changes its
 * payment once, whatever order outcomes arrive in:
 * - a repeat (the payment already shows it) changes nothing and answers `applied: false`;
 * - an outcome implies what must have come before it: RETURNED while the payout is still PROCESSING
 *   completes it first, in the same batch, and the COMPLETED that arrives later is a repeat;
 * - an outcome that cannot apply yet (a payment not handed to the rail yet, a refund not asked for yet) is a
 *   409 the rail may retry; one that contradicts what the rail reported before (FAILED after COMPLETED) is
 *   a 409 with `x-should-retry: false`, left to a person;
 * - an id that is not a payment of this platform handed to the operator's rail is 404.
 */

type Decision = { kind: 'repeat' } | { kind: 'fund' } | { kind: 'change'; hops: Hop[]; refund: boolean };

const repeat: Decision = { kind: 'repeat' };
const tooEarly = (message: string) => retryableConflict(message);
const contradicts = (message: string) => conflict(message);
const notRailPayment = () => notFound('TRANSACTION_NOT_FOUND', 'No payment of this platform was handed to the payment rail under this id');

/** The refund of a failed payout: back to an internal account in the same batch, or (real-time funded) asked of the rail. */
function refundOf(tx: TransactionRow): { refund: Step['refund']; outside: boolean } {
  const outside = paidFromOutside(tx);
  return { refund: { status: outside ? 'PENDING' : 'COMPLETED', reason: 'TRANSACTION_FAILED' }, outside };
}

/** What `outcome` changes on `tx` (a payment of the operator's rail), from the state it is in. */
function decide(tx: TransactionRow, outcome: RailOutcome, now: number): Decision {
  const { status } = tx;
  // A real-time-funded quote: its money came from outside, so its funding and refund are the rail's.
  const funded = paidFromOutside(tx);
  if (outcome.status === 'FUNDED') {
    if (!funded) throw contradicts('FUNDED is the outcome of a real-time-funded quote only');
    if (status === 'EXPIRED')
      throw conflict('The quote expired before its funding was reported: give the money back to its payer', 'QUOTE_EXPIRED');
    return status === 'PENDING' ? { kind: 'fund' } : repeat;
  }
  if (tx.scenario === 'RAIL_CONVERSION')
    throw contradicts('A conversion to an internal account takes FUNDED only: it completes once funded');
  // In flight with the rail: a payout PROCESSING, a collection PENDING (neither awaiting the platform's approval).
  const inFlight = !awaitingApproval(tx) && status === (tx.scenario === 'RAIL_COLLECTION' ? 'PENDING' : 'PROCESSING');
  const notYet = awaitingApproval(tx) || (status === 'PENDING' && !inFlight);
  const refuse = () =>
    notYet
      ? tooEarly(`The payment is not with the rail yet (it is ${status}); report ${outcome.status} once it is`)
      : contradicts(`The payment is ${status}${tx.refund ? ` (refund ${tx.refund.status})` : ''}: ${outcome.status} contradicts it`);
  if (tx.scenario === 'RAIL_COLLECTION') {
    if (outcome.status !== 'COMPLETED' && outcome.status !== 'FAILED' && outcome.status !== 'REJECTED')
      throw contradicts('A collection (transfer-in) is COMPLETED, FAILED or REJECTED');
    if (status === outcome.status) return repeat;
    if (!inFlight) throw refuse();
    const step: Step =
      outcome.status === 'COMPLETED'
        ? { afterMs: 0, status: 'COMPLETED', settle: true }
        : { afterMs: 0, status: outcome.status, failureReason: outcome.failureReason };
    return change([stepHop(tx, step, now)]);
  }
  // RAIL_PAYOUT: the money is held in settlement while the rail pays out. A FAILED payout with a settlement date came back.
  const returned = status === 'FAILED' && tx.settledAt !== null;
  switch (outcome.status) {
    case 'COMPLETED':
      if (status === 'COMPLETED' || returned) return repeat;
      if (!inFlight) throw refuse();
      return change([stepHop(tx, { afterMs: 0, status: 'COMPLETED', settle: true }, now)]);
    case 'FAILED':
    case 'REJECTED': {
      if (status === outcome.status && !returned) return repeat;
      if (status === 'COMPLETED') throw contradicts('The payout completed: a payout that comes back is RETURNED');
      if (!inFlight) throw refuse();
      const { refund, outside } = refundOf(tx);
      return change([stepHop(tx, { afterMs: 0, status: outcome.status, failureReason: outcome.failureReason, refund }, now)], outside);
    }
    case 'RETURNED': {
      if (returned) return repeat;
      if (!inFlight && status !== 'COMPLETED') throw refuse();
      // Still PROCESSING: it completed first (its COMPLETED is on its way), then came back.
      const hops = inFlight ? [stepHop(tx, { afterMs: 0, status: 'COMPLETED', settle: true }, now)] : [];
      const settled = hops[0] ? { ...tx, ...hops[0].set, status: hops[0].status } : tx;
      const { refund, outside } = refundOf(tx);
      const back: Step = { afterMs: 0, status: 'FAILED', failureReason: 'OFFRAMP_FAILED', returned: true, refund };
      return change([...hops, stepHop(settled, back, now)], outside);
    }
    case 'REFUNDED':
      if (status === 'REFUNDED') return repeat;
      if (!inFlight) throw refuse();
      // Cancelled before it went out: the money goes back (a real-time payer's, the rail has given back).
      return change([stepHop(tx, { afterMs: 0, status: 'REFUNDED', refund: { status: 'COMPLETED', reason: 'USER_CANCELLATION' } }, now)]);
    case 'REFUND_COMPLETED':
    case 'REFUND_FAILED': {
      if (!funded) throw contradicts("No refund was asked of the rail: this payout's payer is refunded in the ledger");
      const wanted = outcome.status === 'REFUND_COMPLETED' ? 'COMPLETED' : 'FAILED';
      if (tx.refund?.status === wanted) return repeat;
      if (tx.refund?.status === 'PENDING') return change([refundSettled(tx, wanted, now)]);
      if (!tx.refund && (inFlight || notYet || status === 'COMPLETED')) throw tooEarly('No refund has been asked of the rail yet');
      throw refuse();
    }
  }
}

function change(hops: Hop[], refund = false): Decision {
  return { kind: 'change', hops, refund };
}

const answer = (outcome: RailOutcome, row: TransactionRow, applied: boolean): RailOutcomeResult => ({
  paymentId: row.id,
  status: outcome.status,
  applied,
  transactionStatus: row.status,
  ...(row.refund ? { refundStatus: row.refund.status } : {}),
});

/** How often an outcome that lost a race re-reads its payment before answering 409 (retryable). */
const ATTEMPTS = 4;

/**
 * POST /providers/rail/outcomes: authenticates the outcome (signed under RAIL_SECRET, 401 otherwise; 503
 * without one), then applies it to its payment once (see above). `signature` is the header, `rawBody` the
 * body exactly as received (the signature covers it), `outcome` the same body parsed.
 */
export async function receiveRailOutcome(
  deps: PaymentDeps,
  s: Pick<Settings, 'mode' | 'rail'>,
  signature: string | null,
  rawBody: string,
  outcome: RailOutcome,
  now: number,
): Promise<RailOutcomeResult> {
  await authenticateOutcome(PAYMENT_RAIL, s.mode, s.rail, signature, rawBody, Date.now());
  const { db } = deps;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const [tx] = await db
      .select()
      .from(transactions)
      .where(and(eq(transactions.id, outcome.paymentId), eq(transactions.platformId, outcome.platformId)))
      .limit(1);
    if (!tx || !isOperatorScenario(tx.scenario)) throw notRailPayment();
    const decision = decide(tx, outcome, now);
    if (decision.kind === 'repeat') return answer(outcome, tx, false);
    if (decision.kind === 'fund') {
      const loaded = await loadTogether(db, quoteLoads(db, sql`${tx.platformId}`, transactionQuoteId(tx) ?? ''));
      try {
        const done = await commitChange(deps, await quotePaymentChange(deps, loaded, now, 'send'));
        return answer(outcome, done.body as TransactionRow, true);
      } catch (error) {
        // Another delivery of FUNDED started it first: read it again.
        if (error instanceof ApiError && error.is('QUOTE_NOT_PENDING')) continue;
        throw error;
      }
    }
    if (decision.kind !== 'change') continue;
    const refund = decision.refund ? [railInstruction(db, tx, 'REFUND', now)] : [];
    const draft = await buildChange(db, tx, decision.hops, { now, mode: deps.mode, transitions: refund });
    const result = await commitDraft(deps, draft);
    if (result === 'applied') return answer(outcome, draft.row, true);
    if (result === 'insufficient_funds') throw new Error(`rail outcome ${outcome.status} would overdraw`);
  }
  throw retryableConflict('The payment changed concurrently; retry');
}
