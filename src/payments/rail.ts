// The payment-rail port: every payment that leaves or enters the ledger from outside goes through a rail.
import type { Env, Settings } from '../env';
import type { FailureReason, Refund, TransactionStatus } from '../db/schema';
import type { PaymentInstructions } from '../accounts/internal-schema';
import { SANDBOX_PLANS, sandboxRail, type SandboxScenario } from './sandbox-rail';
import { OPERATOR_PLANS, operatorRail, unconfiguredRail, type OperatorScenario, type RailInstructionType } from './operator-rail';

/**
 * A rail moves money between the ledger and the world outside it: payouts to external accounts (transfer-out,
 * a quote's payout), collections from them (transfer-in), real-time funding of quotes, and the refunds and
 * returns of those. A payment is bound to its rail for life by its scenario, chosen when it is created, which
 * names its plan: what follows its initiation. Two rails implement the port:
 * - the sandbox rail (sandbox-rail.ts): the sandbox's magic values choose a plan whose steps come on a clock;
 * - the operator's rail (operator-rail.ts; production): an instruction goes to the operator's endpoint, and
 *   the payment stays in flight until the operator reports each outcome (rail-outcomes.ts).
 * Production without a configured rail refuses every such payment (503), before anything is written.
 * A quote between two internal accounts stays inside the ledger and needs no rail (INTERNAL_CONVERSION).
 */

export interface Step {
  /** Delay after the previous status; 0 applies it in the same batch. */
  afterMs: number;
  status: TransactionStatus;
  failureReason?: FailureReason;
  /** Pay the destination (SETTLE for outgoing payments, CREDIT for incoming ones). */
  settle?: boolean;
  /** The destination sends the payment back (RETURN) before the refund. */
  returned?: boolean;
  /** COMPLETED returns the debited amount to the payer (REFUND); PENDING waits for the rail; FAILED leaves it with the service. */
  refund?: Pick<Refund, 'status' | 'reason'>;
}

export interface Plan {
  /** Initiation fails at once: the transaction ends with this reason and nothing moves. */
  failsAtOnce?: FailureReason;
  /** The status while in flight (outgoing: PROCESSING, incoming: PENDING). */
  inFlight: TransactionStatus;
  /** Steps on the rail's clock (the sandbox's); the operator's rail reports its own instead. */
  steps: Step[];
  /** The instruction that hands the payment to the operator's rail when it starts. */
  instruct?: RailInstructionType;
}

/** Money that never leaves the ledger: a conversion between internal accounts completes as it starts. */
const LEDGER_PLANS = {
  INTERNAL_CONVERSION: { inFlight: 'PROCESSING', steps: [{ afterMs: 0, status: 'COMPLETED', settle: true }] },
} satisfies Record<string, Plan>;

export type Scenario = SandboxScenario | OperatorScenario | keyof typeof LEDGER_PLANS;

const PLANS: Record<string, Plan> = { ...SANDBOX_PLANS, ...OPERATOR_PLANS, ...LEDGER_PLANS };

/** The plan of a scenario, whichever rail it belongs to. */
export function planOf(scenario: string | null): Plan {
  const plan = Object.hasOwn(PLANS, scenario ?? '') ? PLANS[scenario!] : undefined;
  if (!plan) throw new Error(`unknown payment scenario ${scenario}`);
  return plan;
}

/** What a new payment is, for the rail to bind it to a scenario. */
export type RailOperation = 'QUOTE_PAYOUT' | 'TRANSFER_OUT' | 'TRANSFER_IN' | 'FUNDED_CONVERSION';

/** A real-time-funded quote asking where its payer pays. */
export interface FundingRequest {
  paymentId: string;
  quoteId: string;
  platformId: string;
  amount: number;
  currency: string;
  cryptoNetwork?: string;
  reference: string;
  expiresAt: number;
}

/** The port: what money-moving code asks of the rail it runs on. */
export interface Rail {
  /**
   * The scenario a new payment records, binding it to this rail: `operation` to or from an external
   * account whose primary identifier ends with `suffix` (the sandbox's magic values), or a real-time-funded
   * conversion. 503 SERVICE_NOT_CONFIGURED where production has no rail.
   */
  scenario(operation: RailOperation, suffix: string | null): Scenario;
  /** Where the payer of a real-time-funded quote pays (503 where there is no rail, or the operator's does not answer). */
  fundingInstructions(quote: FundingRequest): Promise<PaymentInstructions[]>;
  /** Refuses to start a payment of `scenario` that this rail cannot carry (503, or 409 for another rail's). */
  ready(scenario: string | null): void;
}

/** The rail of this deployment: the sandbox's in sandbox; in production the operator's, or none (everything 503). */
export function railOf(s: Pick<Settings, 'mode' | 'rail'>, env: Pick<Env, 'RAIL'>): Rail {
  if (s.mode === 'sandbox') return sandboxRail;
  return operatorRail(s.rail, env.RAIL) ?? unconfiguredRail(s.rail);
}
