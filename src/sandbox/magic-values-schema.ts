// The schema of GET /sandbox/magic-values: every sandbox trigger and what it does.
import * as z from 'zod';
import { BeneficiaryVerificationStatus, FailureReason, KycStatus, RefundReason, RefundStatus, TransactionStatus } from '../db/enums';

const Ms = z.int().min(0).meta({ description: 'Milliseconds of the platform clock (the sandbox clock included)' });

/** What a payment does once initiated, step by step. */
export const SandboxPaymentOutcome = z
  .object({
    scenario: z.string().meta({ description: 'The name of the plan the transaction follows', example: 'TRANSFER_OUT_FAILED_LATER' }),
    summary: z.string().meta({ description: 'The plan in one line (Markdown)' }),
    failsAtOnce: FailureReason.optional().meta({ description: 'Initiation fails at once with this reason; nothing moves' }),
    inFlight: TransactionStatus.meta({ description: 'The status while in flight' }),
    steps: z.array(
      z.object({
        afterMs: Ms.meta({ description: 'Delay after the previous status; 0 applies it in the same request' }),
        status: TransactionStatus,
        failureReason: FailureReason.optional(),
        returned: z.boolean().optional().meta({ description: 'The destination sends the payment back first' }),
        refund: z.object({ status: RefundStatus, reason: RefundReason }).optional(),
      }),
    ),
  })
  .meta({ id: 'SandboxPaymentOutcome' });
export type PaymentOutcome = z.infer<typeof SandboxPaymentOutcome>;

const ByOperation = z.object({
  meaning: z.string(),
  quote: SandboxPaymentOutcome.meta({ description: 'A quote to an external account with this suffix, once executed' }),
  transferOut: SandboxPaymentOutcome.meta({ description: 'POST /transfer-out to an external account with this suffix' }),
  transferIn: SandboxPaymentOutcome.meta({ description: 'POST /transfer-in from an external account with this suffix' }),
});

const Suffix = z.string().regex(/^[0-9]{3}$/);
const VerificationOutcome = KycStatus.exclude(['UNVERIFIED']);

const WalletValue = z.object({
  field: z.string().meta({ description: 'Where the value goes' }),
  operation: z.string(),
  value: z.string().meta({ description: 'The value the sandbox accepts in place of a real proof' }),
  refusal: z.string().meta({ description: 'The `reason` of the 401 a wrong value gets' }),
});

export const SandboxMagicValues = z
  .object({
    accountSuffixes: z.object({
      selectedBy: z.string(),
      values: z.array(ByOperation.extend({ suffix: Suffix })),
      otherwise: ByOperation.meta({ description: 'Any other suffix' }),
    }),
    beneficiaryVerification: z.object({
      selectedBy: z.string(),
      values: z.array(
        z.union([
          z.object({ suffix: Suffix, status: BeneficiaryVerificationStatus }),
          z.object({
            suffix: Suffix,
            error: z.object({ status: z.int(), code: z.string() }).meta({ description: 'The account is refused' }),
          }),
        ]),
      ),
      otherwise: BeneficiaryVerificationStatus,
    }),
    umaReceivers: z.object({
      domain: z.string().meta({ description: 'SANDBOX_UMA_DOMAIN (GET /config `sandboxUmaDomain`)' }),
      receivers: z.array(z.object({ address: z.string(), currency: z.string(), name: z.string(), outcome: SandboxPaymentOutcome })),
      refusals: z
        .array(
          z.object({
            address: z.string(),
            operations: z.array(z.string()),
            error: z.object({ status: z.int(), code: z.string() }).meta({ description: "What the receiver's counterparty answers" }),
          }),
        )
        .meta({ description: 'Addresses whose counterparty fails before any payment: the look-up and quotes to them answer this error' }),
      infoRequestingSender: z.object({
        localPart: z.string().meta({ description: 'A `senderUmaAddress` with this local part (any domain) asks for receiver information' }),
        operation: z.string(),
        requestedFields: z.array(z.object({ name: z.string(), mandatory: z.boolean() })),
      }),
      incoming: SandboxPaymentOutcome.meta({ description: 'An incoming UMA payment without a webhookEndpoint' }),
    }),
    verifications: z.array(
      z.object({
        kind: z.enum(['KYC', 'KYB']),
        what: z.string(),
        operation: z.string(),
        field: z.string().optional().meta({ description: 'Whose last 3 characters choose the outcome; none: always `otherwise`' }),
        values: z.array(z.object({ suffix: z.string(), status: VerificationOutcome })),
        otherwise: VerificationOutcome,
      }),
    ),
    wallet: z.object({
      otp: WalletValue,
      passkey: WalletValue.extend({ rpId: z.string().optional(), origins: z.array(z.string()).optional() }),
      walletSignature: WalletValue,
      oauth: z.object({
        field: z.string(),
        signatureChecked: z.boolean().meta({ description: 'false: any signature segment passes; the claims are all checked' }),
        issuers: z.array(z.string()).meta({ description: 'Supported `iss` values (OIDC_ISSUERS)' }),
        maxAgeMs: Ms.meta({ description: 'How old `iat` may be' }),
        clockSkewMs: Ms.meta({ description: 'Skew allowed on `iat`' }),
        retiredToken: z.string().meta({ description: 'A fixed token older sandboxes took; refused' }),
      }),
    }),
    timings: z.array(z.object({ name: z.string(), ms: Ms, description: z.string() })),
  })
  .meta({ id: 'SandboxMagicValues' });
export type MagicValues = z.infer<typeof SandboxMagicValues>;
