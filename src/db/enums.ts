// The value sets of enum columns, written once as zod enums (with their OpenAPI ids): the tables type their
// columns with them, and the API schemas of the areas use the same enums.
import * as z from 'zod';

export const TransactionStatus = z
  .enum(['CREATED', 'PENDING', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'])
  .meta({
    id: 'TransactionStatus',
    description:
      'CREATED: lookup created; PENDING: quote created (or awaiting platform approval); PROCESSING: funding received, payment initiated; COMPLETED: delivered; REJECTED: the receiving institution, wallet or the platform rejected it (funds refunded); FAILED: error during payment; REFUNDED: could not complete, refunded; EXPIRED: the quote expired',
  });
export type TransactionStatus = z.infer<typeof TransactionStatus>;
/** The statuses a transaction still leaves (by its plan or a decision to come); the others are final. */
export const OPEN_TRANSACTION_STATUSES = ['CREATED', 'PENDING', 'PROCESSING'] as const satisfies readonly TransactionStatus[];
/**
 * The final statuses of a payment that did not get through (REJECTED and REFUNDED were refunded,
 * FAILED met an error, EXPIRED never ran); with COMPLETED and the open ones they are every status. A quote
 * shows them as FAILED (EXPIRED as itself), an incoming payment's webhook as INCOMING_PAYMENT.FAILED, and an
 * agent action whose execution leaves its transaction in one ends FAILED, not counted.
 */
export const FAILED_TRANSACTION_STATUSES = ['REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'] as const satisfies readonly TransactionStatus[];
export type FailedTransactionStatus = (typeof FAILED_TRANSACTION_STATUSES)[number];
export const isFailedStatus = (status: TransactionStatus): status is FailedTransactionStatus =>
  (FAILED_TRANSACTION_STATUSES as readonly TransactionStatus[]).includes(status);

export const TransactionType = z.enum(['INCOMING', 'OUTGOING']).meta({ id: 'TransactionType' });
export type TransactionType = z.infer<typeof TransactionType>;

export const Permission = z.enum(['VIEW', 'TRANSACT', 'MANAGE']).meta({ id: 'Permission' });
export type Permission = z.infer<typeof Permission>;

export const KycStatus = z.enum(['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED']).meta({ id: 'KycStatus' });
export type KycStatus = z.infer<typeof KycStatus>;

export const KybStatus = z.enum(['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED']).meta({ id: 'KybStatus' });
export type KybStatus = z.infer<typeof KybStatus>;

export const BulkJobStatus = z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']);
export type BulkJobStatus = z.infer<typeof BulkJobStatus>;

export const CustomerType = z.enum(['INDIVIDUAL', 'BUSINESS']).meta({ id: 'CustomerType' });
export type CustomerType = z.infer<typeof CustomerType>;

export const AuthMethodType = z.enum(['OAUTH', 'EMAIL_OTP', 'PASSKEY']).meta({ id: 'AuthMethodType' });
export type AuthMethodType = z.infer<typeof AuthMethodType>;

export const ExternalAccountStatus = z.enum(['PENDING', 'ACTIVE', 'UNDER_REVIEW', 'INACTIVE']).meta({ id: 'ExternalAccountStatus' });
export type ExternalAccountStatus = z.infer<typeof ExternalAccountStatus>;

export const BeneficiaryVerificationStatus = z
  .enum(['MATCHED', 'PARTIAL_MATCH', 'NOT_MATCHED', 'UNSUPPORTED', 'CHECKED_BY_RECEIVING_FI', 'PENDING'])
  .meta({ id: 'BeneficiaryVerificationStatus' });
export type BeneficiaryVerificationStatus = z.infer<typeof BeneficiaryVerificationStatus>;

export const VerificationStatus = z
  .enum(['RESOLVE_ERRORS', 'PENDING_MANUAL_REVIEW', 'IN_PROGRESS', 'APPROVED', 'REJECTED', 'READY_FOR_VERIFICATION'])
  .meta({ id: 'VerificationStatus' });
export type VerificationStatus = z.infer<typeof VerificationStatus>;

export const WebhookDeliveryStatus = z.enum(['PENDING', 'DELIVERED', 'FAILED', 'SKIPPED']).meta({
  id: 'WebhookDeliveryStatus',
  description:
    'PENDING: not yet acknowledged, retries scheduled; DELIVERED: 2xx or 409 received; FAILED: gave up; SKIPPED: no webhookEndpoint configured',
});
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

export const InternalAccountType = z.enum(['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET']).meta({ id: 'InternalAccountType' });
export type InternalAccountType = z.infer<typeof InternalAccountType>;

export const InternalAccountStatus = z.enum(['PENDING', 'ACTIVE', 'CLOSED', 'FROZEN']).meta({ id: 'InternalAccountStatus' });
export type InternalAccountStatus = z.infer<typeof InternalAccountStatus>;

export const AgentActionStatus = z.enum(['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED']).meta({ id: 'AgentActionStatus' });
export type AgentActionStatus = z.infer<typeof AgentActionStatus>;

export const AgentActionType = z.enum(['EXECUTE_QUOTE', 'TRANSFER_OUT', 'TRANSFER_IN']).meta({ id: 'AgentActionType' });
export type AgentActionType = z.infer<typeof AgentActionType>;

/** Why a transaction failed. */
export const FailureReason = z
  .enum([
    'LNURLP_FAILED',
    'PAY_REQUEST_FAILED',
    'PAYMENT_APPROVAL_WEBHOOK_ERROR',
    'PAYMENT_APPROVAL_TIMED_OUT',
    'OFFRAMP_FAILED',
    'MISSING_MANDATORY_PAYEE_DATA',
    'QUOTE_EXPIRED',
    'QUOTE_EXECUTION_FAILED',
  ])
  .meta({ id: 'TransactionFailureReason' });
export type FailureReason = z.infer<typeof FailureReason>;

export const RefundStatus = z.enum(['PENDING', 'COMPLETED', 'FAILED']);
export type RefundStatus = z.infer<typeof RefundStatus>;

export const RefundReason = z.enum(['TRANSACTION_FAILED', 'USER_CANCELLATION', 'TIMEOUT']);
export type RefundReason = z.infer<typeof RefundReason>;

/** How a quote is paid: from an internal account, or by real-time funding to its payment instructions. */
export const QuoteSourceType = z.enum(['ACCOUNT', 'REALTIME_FUNDING']);
export type QuoteSourceType = z.infer<typeof QuoteSourceType>;

export const LockedSide = z.enum(['SENDING', 'RECEIVING']);
export type LockedSide = z.infer<typeof LockedSide>;

/** An invitation's status as the API shows it; EXPIRED is never stored (a PENDING one past its `expiresAt`). */
export const InvitationStatus = z.enum(['PENDING', 'CLAIMED', 'EXPIRED', 'CANCELLED']).meta({ id: 'UmaInvitationStatus' });
export type InvitationStatus = z.infer<typeof InvitationStatus>;
/** What an invitation row holds. */
export type StoredInvitationStatus = Exclude<InvitationStatus, 'EXPIRED'>;

/** How a hosted KYC link ended: the customer completed the verification or failed it. */
export const KycLinkOutcome = z.enum(['APPROVED', 'REJECTED']).meta({ id: 'KycLinkOutcome' });
export type KycLinkOutcome = z.infer<typeof KycLinkOutcome>;
