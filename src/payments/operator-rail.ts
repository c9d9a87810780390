// The operator's payment rail (production): payments handed over as signed instructions, outcomes reported back.
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { Env, ProviderSettings, Settings } from '../env';
import { endAccountId, externalAccounts, transactionQuoteId, transactions, type TransactionRow } from '../db/schema';
import { ApiError, conflict } from '../http/errors';
import type { Logger } from '../http/log';
import { iso } from '../common/time';
import { PAYMENT_RAIL, providerChannel, providerNotConfigured, type ProviderChannel } from '../providers/channel';
import { deliveryHandler, scheduleInstruction, type InstructionBuilder } from '../providers/delivery';
import { externalAccountView } from '../external-accounts/service';
import type { TransitionHandlers } from '../transitions/schedule';
import type { FundingRequest, Plan, Rail } from './rail';
import { FundingAnswer, type RailInstruction } from './rail-schema';

/**
 * The operator's rail. Starting a payment debits the payer into settlement as always, puts the payment in
 * flight and writes its instruction in the same batch; the instruction is then delivered (and re-delivered
 * until the rail answers 2xx). Nothing more happens until the rail reports through the outcome API
 * (rail-outcomes.ts): COMPLETED, FAILED or REJECTED with a reason, RETURNED, REFUNDED; for a real-time-funded
 * quote, FUNDED when the money arrived, and REFUND_COMPLETED or REFUND_FAILED for a refund it was asked for.
 */

export type RailInstructionType = 'PAYOUT' | 'COLLECTION' | 'REFUND';

/** The kind of the outbox rows that deliver rail instructions. */
export const RAIL_INSTRUCTION = 'rail.instruct';

/**
 * RAIL_PAYOUT: an outgoing payment to an external account (transfer-out, a quote's payout, real-time funded
 * or not); RAIL_COLLECTION: a transfer-in; RAIL_CONVERSION: a real-time-funded quote to an internal account,
 * which needs the rail only for its funding and converts inside the ledger once funded.
 */
export const OPERATOR_PLANS = {
  RAIL_PAYOUT: { inFlight: 'PROCESSING', steps: [], instruct: 'PAYOUT' },
  RAIL_COLLECTION: { inFlight: 'PENDING', steps: [], instruct: 'COLLECTION' },
  RAIL_CONVERSION: { inFlight: 'PROCESSING', steps: [{ afterMs: 0, status: 'COMPLETED', settle: true }] },
} satisfies Record<string, Plan>;
export type OperatorScenario = keyof typeof OPERATOR_PLANS;

export const isOperatorScenario = (scenario: string | null): scenario is OperatorScenario =>
  scenario !== null && Object.hasOwn(OPERATOR_PLANS, scenario);

/** Production may start these: the operator rail's and the ledger's own (never a sandbox plan of an older release). */
const startsInProduction = (scenario: string | null) => isOperatorScenario(scenario) || scenario === 'INTERNAL_CONVERSION';

/** How long the rail may take to answer a FUNDING instruction (a quote is being created meanwhile). */
const FUNDING_TIMEOUT_MS = 5_000;

/** The operator's rail, or undefined when it is not configured (RAIL or RAIL_URL, and RAIL_SECRET). */
export function operatorRail(s: ProviderSettings, binding: Fetcher | undefined): Rail | undefined {
  const channel = providerChannel(PAYMENT_RAIL, s, binding);
  if (!channel) return undefined;
  return {
    scenario: (operation) =>
      operation === 'TRANSFER_IN' ? 'RAIL_COLLECTION' : operation === 'FUNDED_CONVERSION' ? 'RAIL_CONVERSION' : 'RAIL_PAYOUT',
    fundingInstructions: (quote) => askFunding(channel, quote),
    ready(scenario) {
      if (!startsInProduction(scenario))
        throw conflict('This payment was created under the sandbox rules of an earlier release; create a new one');
    },
  };
}

/** Production without a rail: every payment that needs one is refused before anything is written. */
export function unconfiguredRail(s: ProviderSettings): Rail {
  const refuse = () => providerNotConfigured(PAYMENT_RAIL, s);
  return {
    scenario: () => {
      throw refuse();
    },
    fundingInstructions: async () => {
      throw refuse();
    },
    ready(scenario) {
      if (scenario !== 'INTERNAL_CONVERSION') throw refuse();
    },
  };
}

const unavailable = (reason: string) =>
  new ApiError('SERVICE_UNAVAILABLE', 'The payment rail did not give payment instructions for this quote; retry later', {
    provider: PAYMENT_RAIL.label,
    reason,
  });

/** A FUNDING instruction, answered at once with the payment instructions the quote shows its payer. */
async function askFunding(channel: ProviderChannel, q: FundingRequest) {
  const body: RailInstruction = {
    type: 'FUNDING',
    id: `${q.paymentId}/FUNDING`,
    paymentId: q.paymentId,
    platformId: q.platformId,
    amount: q.amount,
    currency: q.currency,
    reference: q.reference,
    createdAt: iso(Date.now()),
    quoteId: q.quoteId,
    ...(q.cryptoNetwork ? { cryptoNetwork: q.cryptoNetwork } : {}),
    expiresAt: iso(q.expiresAt),
  };
  let answer: unknown;
  try {
    const response = await channel.post({ id: body.id, body: JSON.stringify(body) }, FUNDING_TIMEOUT_MS);
    if (!response.ok) {
      await response.body?.cancel();
      throw unavailable(`status ${response.status}`);
    }
    answer = await response.json();
  } catch (error) {
    throw error instanceof ApiError ? error : unavailable(error instanceof SyntaxError ? 'answer is not JSON' : 'unreachable');
  }
  const parsed = FundingAnswer.safeParse(answer);
  if (!parsed.success) throw unavailable('answer is not {"paymentInstructions": [...]}');
  return parsed.data.paymentInstructions;
}

/** The outbox row that hands `row` to the rail with an instruction of `type`; it joins the change's batch. */
export function railInstruction(db: Db, row: Pick<TransactionRow, 'id' | 'platformId'>, type: RailInstructionType, now: number) {
  return scheduleInstruction(db, { platformId: row.platformId, subjectId: row.id, kind: RAIL_INSTRUCTION, type, now });
}

/** The instruction of `type` for the transaction an outbox row names, built from what is stored (the same on every delivery). */
const buildInstruction: InstructionBuilder = async (ctx, type) => {
  const { db, row } = ctx;
  const [tx] = await db
    .select()
    .from(transactions)
    .where(and(eq(transactions.id, row.subjectId), eq(transactions.platformId, row.platformId)))
    .limit(1);
  if (!tx) return null;
  const body = await instructionOf(db, tx, type as RailInstructionType);
  return body && { id: body.id, body: JSON.stringify(body) };
};

async function instructionOf(db: Db, tx: TransactionRow, type: RailInstructionType): Promise<RailInstruction | null> {
  const base = {
    id: `${tx.id}/${type}`,
    paymentId: tx.id,
    platformId: tx.platformId,
    reference: tx.reference,
    createdAt: iso(tx.createdAt),
  };
  const holder = { customerId: tx.customerId ?? tx.platformId, platformCustomerId: tx.platformCustomerId };
  const quoteId = transactionQuoteId(tx);
  if (type === 'REFUND') {
    return {
      type,
      ...base,
      amount: tx.sentAmount!,
      currency: tx.sentCurrency!,
      quoteId: quoteId!,
      reason: tx.refund?.reason ?? 'TRANSACTION_FAILED',
    };
  }
  // The external end, as the API shows it (a deleted account still as it was: the payment was made to it).
  const externalId = endAccountId(type === 'PAYOUT' ? tx.destination : tx.source);
  const [external] = await db
    .select()
    .from(externalAccounts)
    .where(eq(externalAccounts.id, externalId ?? ''))
    .limit(1);
  if (!external) return null;
  const amount = { amount: tx.receivedAmount, currency: tx.receivedCurrency };
  if (type === 'COLLECTION') {
    return {
      type,
      ...base,
      ...amount,
      ...holder,
      source: externalAccountView(external),
      destinationAccountId: endAccountId(tx.destination)!,
    };
  }
  return {
    type,
    ...base,
    ...amount,
    ...holder,
    destination: externalAccountView(external),
    ...(quoteId ? { quoteId } : {}),
    ...(tx.description ? { description: tx.description } : {}),
  };
}

/** The delivery of rail instructions, through this deployment's rail (waiting while none is configured). */
export function railDelivery(env: Pick<Env, 'RAIL'>, s: Pick<Settings, 'rail'>, log: Logger): TransitionHandlers {
  return { [RAIL_INSTRUCTION]: deliveryHandler(RAIL_INSTRUCTION, providerChannel(PAYMENT_RAIL, s.rail, env.RAIL), buildInstruction, log) };
}
