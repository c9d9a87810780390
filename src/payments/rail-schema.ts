// The operator rail's wire: the instructions the service sends it and the outcomes it reports back.
import * as z from 'zod';
import { FailureReason, RefundReason, RefundStatus, TransactionStatus } from '../db/enums';
import { DateTime } from '../common/time';
import { ExternalAccount } from '../external-accounts/schema';
import { PaymentInstructions } from '../accounts/internal-schema';

// --- Instructions (service → rail) ---

const instruction = {
  id: z.string().meta({ description: '`<paymentId>/<type>`: the same on every delivery, also sent as `Idempotency-Key`' }),
  paymentId: z
    .string()
    .meta({ description: 'The transaction; outcomes name it', example: 'Transaction:019542f5-b3e7-1d02-0000-000000000001' }),
  platformId: z.string(),
  amount: z.int().meta({ description: 'Smallest unit of `currency`' }),
  currency: z.string(),
  reference: z.string().meta({ description: "The transaction's reconciliation reference" }),
  createdAt: DateTime,
};
const holder = {
  customerId: z.string().meta({ description: "The customer whose money it is (the platform id for the platform's own)" }),
  platformCustomerId: z.string(),
};

/** Pay `amount` of `currency` to `destination`, from the money the service holds for the payment. */
export const PayoutInstruction = z
  .object({
    type: z.literal('PAYOUT'),
    ...instruction,
    ...holder,
    destination: ExternalAccount,
    quoteId: z.string().optional(),
    description: z.string().optional(),
  })
  .meta({ id: 'RailPayoutInstruction' });

/** Pull `amount` of `currency` from `source` into the service (a transfer-in to `destinationAccountId`). */
export const CollectionInstruction = z
  .object({ type: z.literal('COLLECTION'), ...instruction, ...holder, source: ExternalAccount, destinationAccountId: z.string() })
  .meta({ id: 'RailCollectionInstruction' });

/** Give `amount` of `currency` back to whoever funded the real-time-funded quote `quoteId`. */
export const RefundInstruction = z
  .object({ type: z.literal('REFUND'), ...instruction, quoteId: z.string(), reason: RefundReason })
  .meta({ id: 'RailRefundInstruction' });

/** Answered at once with where the quote's payer pays; report FUNDED once the money has arrived. */
export const FundingInstruction = z
  .object({
    type: z.literal('FUNDING'),
    ...instruction,
    quoteId: z.string(),
    customerId: z.string().optional(),
    cryptoNetwork: z.string().optional(),
    expiresAt: DateTime,
  })
  .meta({ id: 'RailFundingInstruction' });

export type RailInstruction = z.infer<
  typeof PayoutInstruction | typeof CollectionInstruction | typeof RefundInstruction | typeof FundingInstruction
>;

/** The rail's answer to a FUNDING instruction. */
export const FundingAnswer = z.object({ paymentInstructions: z.array(PaymentInstructions).min(1).max(10) });

// --- Outcomes (rail → service) ---

const outcomeOf = {
  paymentId: z.string().max(128).meta({ example: 'Transaction:019542f5-b3e7-1d02-0000-000000000001' }),
  platformId: z.string().max(128),
};

/** Failure reasons a rail may report (the FailureReason enum, less the ones the service decides itself). */
const RailFailureReason = FailureReason.exclude(['QUOTE_EXPIRED', 'PAYMENT_APPROVAL_WEBHOOK_ERROR', 'PAYMENT_APPROVAL_TIMED_OUT']).meta({
  id: 'RailFailureReason',
});

export const RailOutcome = z
  .discriminatedUnion('status', [
    z.object({
      ...outcomeOf,
      status: z.literal('FUNDED').meta({ description: "A real-time-funded quote's money arrived: its payment starts" }),
    }),
    z.object({
      ...outcomeOf,
      status: z.literal('COMPLETED').meta({ description: 'A payout reached its destination, or a collection arrived' }),
    }),
    z.object({
      ...outcomeOf,
      status: z
        .enum(['FAILED', 'REJECTED'])
        .meta({ description: 'The payout or collection failed (REJECTED: by the receiving institution); a payout is refunded' }),
      failureReason: RailFailureReason,
    }),
    z.object({ ...outcomeOf, status: z.literal('RETURNED').meta({ description: 'A completed payout came back; it is refunded' }) }),
    z.object({
      ...outcomeOf,
      status: z.literal('REFUNDED').meta({ description: 'A payout was cancelled before it went out, and its money given back' }),
    }),
    z.object({
      ...outcomeOf,
      status: z.enum(['REFUND_COMPLETED', 'REFUND_FAILED']).meta({ description: 'How a REFUND instruction ended' }),
    }),
  ])
  .meta({ id: 'RailOutcome' });
export type RailOutcome = z.infer<typeof RailOutcome>;

export const RailOutcomeResult = z
  .object({
    paymentId: z.string(),
    status: z.string().meta({ description: 'The outcome reported' }),
    applied: z.boolean().meta({ description: 'false: the payment already showed this outcome (a repeat changes nothing)' }),
    transactionStatus: TransactionStatus,
    refundStatus: RefundStatus.optional(),
  })
  .meta({ id: 'RailOutcomeResult' });
export type RailOutcomeResult = z.infer<typeof RailOutcomeResult>;
