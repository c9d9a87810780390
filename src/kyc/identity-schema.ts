// The identity provider's wire: the instructions the service sends it and the outcomes it reports back.
import * as z from 'zod';
import { KycStatus, VerificationStatus } from '../db/enums';
import { DateTime } from '../common/time';
import { Customer } from '../customers/schema';
import { BeneficialOwner } from '../customers/beneficial-owners';
import { VerificationErrorType } from './schema';

// --- Instructions (service → identity provider) ---

const instruction = {
  id: z.string().meta({ description: 'The same on every delivery of this submission, also sent as `Idempotency-Key`' }),
  platformId: z.string(),
  createdAt: DateTime,
};

/** Verify a customer (KYC of an individual, KYB of a business with its beneficial owners), as it is now. */
export const VerificationInstruction = z
  .object({ type: z.literal('VERIFICATION'), ...instruction, verificationId: z.string(), customer: Customer })
  .meta({ id: 'IdentityVerificationInstruction' });

/** Verify a business customer's beneficial owner (KYC), as it is now. */
export const BeneficialOwnerInstruction = z
  .object({ type: z.literal('BENEFICIAL_OWNER'), ...instruction, beneficialOwnerId: z.string(), beneficialOwner: BeneficialOwner })
  .meta({ id: 'IdentityBeneficialOwnerInstruction' });

/** Verify a customer through the provider's hosted KYC page, which the customer opens with `?kycLinkId=`. */
export const KycLinkInstruction = z
  .object({
    type: z.literal('KYC_LINK'),
    ...instruction,
    kycLinkId: z.string().meta({ description: 'The link: the hosted page is opened with it, and its outcome reported by it' }),
    customer: Customer,
    redirectUri: z.string().optional().meta({ description: 'Where the page sends the browser when done (the platform chose it)' }),
    expiresAt: DateTime.meta({ description: 'After this the link can no longer be completed (nor its outcome reported)' }),
  })
  .meta({ id: 'IdentityKycLinkInstruction' });

export type IdentityInstruction = z.infer<typeof VerificationInstruction | typeof BeneficialOwnerInstruction | typeof KycLinkInstruction>;

// --- Outcomes (identity provider → service) ---

/** A reason the provider gives: what is wrong, or which document it needs (the verification's `errors` show it). */
const ProviderReason = z
  .object({
    resourceId: z.string().max(128).optional().meta({ description: 'What it is about (a BeneficialOwner id); the customer when absent' }),
    type: VerificationErrorType,
    field: z.string().max(200).optional(),
    acceptedDocumentTypes: z.array(z.string().max(64)).max(20).optional(),
    reason: z.string().min(1).max(1000),
  })
  .meta({ id: 'IdentityProviderReason' });
export type ProviderReason = z.infer<typeof ProviderReason>;
const reasons = z.array(ProviderReason).min(1).max(50);

const verification = { verificationId: z.string().max(128), platformId: z.string().max(128) };

export const VerificationOutcome = z.discriminatedUnion('status', [
  z.object({ ...verification, status: z.literal('APPROVED') }),
  z.object({ ...verification, status: z.literal('REJECTED'), errors: reasons }),
  z.object({
    ...verification,
    status: z.literal('DOCUMENTS_REQUESTED').meta({ description: 'RESOLVE_ERRORS: the platform uploads them, then submits again' }),
    errors: reasons,
  }),
]);

export const OwnerOutcome = z.object({
  beneficialOwnerId: z.string().max(128),
  platformId: z.string().max(128),
  status: z.enum(['APPROVED', 'REJECTED']),
});

const link = {
  kycLinkId: z.string().max(128).meta({ description: 'A hosted KYC link (KYC_LINK instruction): the customer completed or failed it' }),
  platformId: z.string().max(128),
};

export const KycLinkOutcome = z.discriminatedUnion('status', [
  z.object({ ...link, status: z.literal('APPROVED') }),
  z.object({ ...link, status: z.literal('REJECTED'), errors: reasons }),
]);

export const IdentityOutcome = z.union([VerificationOutcome, OwnerOutcome, KycLinkOutcome]).meta({
  id: 'IdentityOutcome',
  description:
    "Keyed by `verificationId` (APPROVED, REJECTED or DOCUMENTS_REQUESTED), `beneficialOwnerId` (APPROVED or REJECTED) or `kycLinkId` (APPROVED or REJECTED with its reasons: a verification with that outcome, the customer's kycStatus/kybStatus)",
});
export type IdentityOutcome = z.infer<typeof IdentityOutcome>;

export const IdentityOutcomeResult = z
  .object({
    id: z.string().meta({ description: 'The verification, beneficial owner or KYC link' }),
    status: z.string().meta({ description: 'The outcome reported' }),
    applied: z.boolean().meta({ description: 'false: it already showed this outcome (a repeat changes nothing)' }),
    verificationStatus: VerificationStatus.optional(),
    kycStatus: KycStatus.optional().meta({ description: "The customer's (after a verification) or the owner's" }),
  })
  .meta({ id: 'IdentityOutcomeResult' });
export type IdentityOutcomeResult = z.infer<typeof IdentityOutcomeResult>;
