// Sandbox outcomes: the plan a transaction follows once initiated, step by step.
import type { FailureReason, Refund, TransactionStatus } from '../db/schema';

/**
 * Sandbox outcomes: the plan a transaction follows once initiated (quote executed or funded,
 * transfer created, incoming payment received). The scenario is chosen when the transaction is created
 * (from the external account's 3-digit suffix or the sandbox UMA receiver) and stored on it; delayed steps
 * are due transitions, applied by the queue consumer, the cron sweep or a sandbox clock advance.
 *
 * Initiating an outgoing payment debits the payer into the service's settlement account (DEBIT, or FUNDING
 * for real-time funding); completion pays the destination (SETTLE); a refund returns the debited amount
 * exactly once (REFUND); a returned payment comes back from the destination first (RETURN). Incoming
 * payments move nothing until they complete (CREDIT). `failureReason` values come from the FailureReason enum.
 *
 * Quotes to an external account (by suffix), to a sandbox UMA receiver, or to an internal account:
 * | Case                        | Path after execution                                   | End status | failureReason          | Refund                       |
 * |-----------------------------|--------------------------------------------------------|------------|------------------------|------------------------------|
 * | 002 execution failed        | PENDING → FAILED at once, nothing debited             | FAILED     | QUOTE_EXECUTION_FAILED | none                         |
 * | 003 completes after ~6 min  | PENDING → PROCESSING → COMPLETED (+6 min)              | COMPLETED  |                        |                              |
 * | 004 counterparty delivery   | PENDING → PROCESSING → FAILED (+5 s)                   | FAILED     | OFFRAMP_FAILED         | COMPLETED, TRANSACTION_FAILED|
 * | 005 returned by the bank    | PENDING → PROCESSING → COMPLETED (+5 s) → FAILED (+60 s)| FAILED    | OFFRAMP_FAILED         | COMPLETED, TRANSACTION_FAILED|
 * | 006 user cancellation       | PENDING → PROCESSING → REFUNDED (+5 s)                 | REFUNDED   |                        | COMPLETED, USER_CANCELLATION |
 * | 007 payout and refund failed| PENDING → PROCESSING → FAILED (+5 s); money stays held | FAILED     | OFFRAMP_FAILED         | FAILED, TRANSACTION_FAILED   |
 * | other suffix                | PENDING → PROCESSING → COMPLETED (+5 s)                | COMPLETED  |                        |                              |
 * | $success.usd/eur/mxn        | PENDING → PROCESSING → COMPLETED (+5 s)                | COMPLETED  |                        |                              |
 * | $pending.long.usd           | PENDING → PROCESSING, COMPLETED only after 24 h        | PROCESSING |                        |                              |
 * | $fail.compliance.usd        | PENDING → PROCESSING → REJECTED (+5 s)                 | REJECTED   | PAY_REQUEST_FAILED     | COMPLETED, TRANSACTION_FAILED|
 * | internal account destination| PENDING → PROCESSING → COMPLETED in the same request   | COMPLETED  |                        |                              |
 * | quote not executed in time  | PENDING → EXPIRED (at expiresAt, or on execute)        | EXPIRED    | QUOTE_EXPIRED          |                              |
 *
 * Transfers (by the external account's suffix):
 * | Suffix | transfer-out (OUTGOING, debits at once)                     | transfer-in (INCOMING, credits on completion)       |
 * |--------|-------------------------------------------------------------|-----------------------------------------------------|
 * | 002    | FAILED at once, OFFRAMP_FAILED, nothing debited (insufficient funds at the bank) | FAILED at once, PAY_REQUEST_FAILED |
 * | 003    | FAILED at once, OFFRAMP_FAILED, nothing debited (closed or invalid account)      | FAILED at once, PAY_REQUEST_FAILED |
 * | 004    | PROCESSING → REJECTED (+5 s), OFFRAMP_FAILED, refunded       | PENDING → REJECTED (+5 s), PAY_REQUEST_FAILED       |
 * | 005    | PROCESSING → FAILED (+30 s), OFFRAMP_FAILED, refunded        | PENDING → FAILED (+30 s), PAY_REQUEST_FAILED        |
 * | other  | PROCESSING → COMPLETED in the same request                   | PENDING → COMPLETED in the same request             |
 * OFFRAMP_FAILED: the payout to the bank failed; PAY_REQUEST_FAILED: the pull from the bank was refused.
 *
 * Incoming UMA payments (POST /sandbox/uma/receive): PENDING → COMPLETED (+5 s), crediting the receiver;
 * with a webhookEndpoint, PENDING until the platform decides (src/payments/incoming-approval.ts).
 * Production honours no magic value: every payment follows the "other" row.
 */

/** The plans' delays (GET /sandbox/magic-values lists them as its timings). */
export const SETTLE_MS = 5_000;
export const SLOW_PAYOUT_MS = 6 * 60_000;
export const RETURN_AFTER_MS = 60_000;
export const TRANSFER_FAIL_MS = 30_000;
export const LONG_PENDING_MS = 24 * 60 * 60_000;

export interface Step {
  /** Delay after the previous status; 0 applies it in the same batch. */
  afterMs: number;
  status: TransactionStatus;
  failureReason?: FailureReason;
  /** Pay the destination (SETTLE for outgoing payments, CREDIT for incoming ones). */
  settle?: boolean;
  /** The destination sends the payment back (RETURN) before the refund. */
  returned?: boolean;
  /** COMPLETED returns the debited amount to the payer (REFUND); FAILED leaves it with the service. */
  refund?: Pick<Refund, 'status' | 'reason'>;
}

export interface Plan {
  /** Initiation fails at once: the transaction ends with this reason and nothing moves. */
  failsAtOnce?: FailureReason;
  /** The status while in flight (outgoing: PROCESSING, incoming: PENDING). */
  inFlight: TransactionStatus;
  steps: Step[];
}

const refunded = { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' } as const;
const outgoing = (...steps: Step[]): Plan => ({ inFlight: 'PROCESSING', steps });
const incoming = (...steps: Step[]): Plan => ({ inFlight: 'PENDING', steps });
const failsAtOnce = (failureReason: FailureReason, inFlight: TransactionStatus): Plan => ({
  failsAtOnce: failureReason,
  inFlight,
  steps: [],
});

const PLANS = {
  PAYOUT_SUCCESS: outgoing({ afterMs: SETTLE_MS, status: 'COMPLETED', settle: true }),
  PAYOUT_EXECUTION_FAILED: failsAtOnce('QUOTE_EXECUTION_FAILED', 'PROCESSING'),
  PAYOUT_SLOW: outgoing({ afterMs: SLOW_PAYOUT_MS, status: 'COMPLETED', settle: true }),
  PAYOUT_DELIVERY_FAILED: outgoing({ afterMs: SETTLE_MS, status: 'FAILED', failureReason: 'OFFRAMP_FAILED', refund: refunded }),
  PAYOUT_RETURNED: outgoing(
    { afterMs: SETTLE_MS, status: 'COMPLETED', settle: true },
    { afterMs: RETURN_AFTER_MS, status: 'FAILED', failureReason: 'OFFRAMP_FAILED', returned: true, refund: refunded },
  ),
  PAYOUT_CANCELLED: outgoing({ afterMs: SETTLE_MS, status: 'REFUNDED', refund: { status: 'COMPLETED', reason: 'USER_CANCELLATION' } }),
  PAYOUT_REFUND_FAILED: outgoing({
    afterMs: SETTLE_MS,
    status: 'FAILED',
    failureReason: 'OFFRAMP_FAILED',
    refund: { status: 'FAILED', reason: 'TRANSACTION_FAILED' },
  }),
  INTERNAL_CONVERSION: outgoing({ afterMs: 0, status: 'COMPLETED', settle: true }),
  UMA_SUCCESS: outgoing({ afterMs: SETTLE_MS, status: 'COMPLETED', settle: true }),
  UMA_PENDING_LONG: outgoing({ afterMs: LONG_PENDING_MS, status: 'COMPLETED', settle: true }),
  UMA_COMPLIANCE_FAILED: outgoing({ afterMs: SETTLE_MS, status: 'REJECTED', failureReason: 'PAY_REQUEST_FAILED', refund: refunded }),
  TRANSFER_OUT_SUCCESS: outgoing({ afterMs: 0, status: 'COMPLETED', settle: true }),
  TRANSFER_OUT_FAILED_AT_ONCE: failsAtOnce('OFFRAMP_FAILED', 'PROCESSING'),
  TRANSFER_OUT_REJECTED: outgoing({ afterMs: SETTLE_MS, status: 'REJECTED', failureReason: 'OFFRAMP_FAILED', refund: refunded }),
  TRANSFER_OUT_FAILED_LATER: outgoing({ afterMs: TRANSFER_FAIL_MS, status: 'FAILED', failureReason: 'OFFRAMP_FAILED', refund: refunded }),
  TRANSFER_IN_SUCCESS: incoming({ afterMs: 0, status: 'COMPLETED', settle: true }),
  TRANSFER_IN_FAILED_AT_ONCE: failsAtOnce('PAY_REQUEST_FAILED', 'PENDING'),
  TRANSFER_IN_REJECTED: incoming({ afterMs: SETTLE_MS, status: 'REJECTED', failureReason: 'PAY_REQUEST_FAILED' }),
  TRANSFER_IN_FAILED_LATER: incoming({ afterMs: TRANSFER_FAIL_MS, status: 'FAILED', failureReason: 'PAY_REQUEST_FAILED' }),
  UMA_RECEIVE: incoming({ afterMs: SETTLE_MS, status: 'COMPLETED', settle: true }),
} satisfies Record<string, Plan>;

export type Scenario = keyof typeof PLANS;

export function planOf(scenario: string | null): Plan {
  const plan = (PLANS as Record<string, Plan>)[scenario ?? ''];
  if (!plan) throw new Error(`unknown payment scenario ${scenario}`);
  return plan;
}

/** The scenarios an external account's suffix selects, per operation (the tables above). */
export interface SuffixScenarios {
  /** What the suffix stands for, in a few words. */
  meaning: string;
  quote: Scenario;
  transferOut: Scenario;
  transferIn: Scenario;
}

/** The sandbox suffixes with an outcome other than success, read by the code and by GET /sandbox/magic-values. */
export const SANDBOX_SUFFIXES: Readonly<Record<string, SuffixScenarios>> = {
  '002': {
    meaning: 'execution fails (transfers: insufficient funds at the bank)',
    quote: 'PAYOUT_EXECUTION_FAILED',
    transferOut: 'TRANSFER_OUT_FAILED_AT_ONCE',
    transferIn: 'TRANSFER_IN_FAILED_AT_ONCE',
  },
  '003': {
    meaning: 'slow payout (transfers: account closed or invalid)',
    quote: 'PAYOUT_SLOW',
    transferOut: 'TRANSFER_OUT_FAILED_AT_ONCE',
    transferIn: 'TRANSFER_IN_FAILED_AT_ONCE',
  },
  '004': {
    meaning: 'delivery to the counterparty fails',
    quote: 'PAYOUT_DELIVERY_FAILED',
    transferOut: 'TRANSFER_OUT_REJECTED',
    transferIn: 'TRANSFER_IN_REJECTED',
  },
  '005': {
    meaning: 'returned by the bank',
    quote: 'PAYOUT_RETURNED',
    transferOut: 'TRANSFER_OUT_FAILED_LATER',
    transferIn: 'TRANSFER_IN_FAILED_LATER',
  },
  '006': {
    meaning: 'user cancellation',
    quote: 'PAYOUT_CANCELLED',
    transferOut: 'TRANSFER_OUT_SUCCESS',
    transferIn: 'TRANSFER_IN_SUCCESS',
  },
  '007': {
    meaning: 'payout and refund fail',
    quote: 'PAYOUT_REFUND_FAILED',
    transferOut: 'TRANSFER_OUT_SUCCESS',
    transferIn: 'TRANSFER_IN_SUCCESS',
  },
};

/** Any other suffix, no suffix, and every payment in production. */
export const OTHER_SUFFIX: SuffixScenarios = {
  meaning: 'success',
  quote: 'PAYOUT_SUCCESS',
  transferOut: 'TRANSFER_OUT_SUCCESS',
  transferIn: 'TRANSFER_IN_SUCCESS',
};

const scenariosOf = (suffix: string | null, sandbox: boolean): SuffixScenarios =>
  sandbox && suffix !== null && Object.hasOwn(SANDBOX_SUFFIXES, suffix) ? SANDBOX_SUFFIXES[suffix]! : OTHER_SUFFIX;

/** Quote to an external account: the quotes table above, by the account's suffix (no magic outside the sandbox). */
export const payoutScenario = (suffix: string | null, sandbox: boolean): Scenario => scenariosOf(suffix, sandbox).quote;

/** Transfers: the transfers table above, by the external account's suffix. */
export function transferScenario(direction: 'IN' | 'OUT', suffix: string | null, sandbox: boolean): Scenario {
  const scenarios = scenariosOf(suffix, sandbox);
  return direction === 'IN' ? scenarios.transferIn : scenarios.transferOut;
}
