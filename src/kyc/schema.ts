// The KYC schemas: beneficial-owner lists, verifications and their errors.
import * as z from 'zod';
import { KycLinkOutcome, VerificationStatus } from '../db/enums';
import { BeneficialOwner } from '../customers/beneficial-owners';
import { DateTime } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';

export const BeneficialOwnerList = pageOf(BeneficialOwner, 'BeneficialOwnerListResponse');
export const BeneficialOwnerListQuery = z.object({
  customerId: z.string().max(128).meta({ description: 'The business customer whose owners to list' }),
  limit: limitParam,
  cursor: cursorParam,
});
export const BeneficialOwnerIdParams = z.object({ beneficialOwnerId: z.string().max(128) });

// --- Verifications ---

export const VerificationErrorType = z
  .enum([
    'MISSING_FIELD',
    'INVALID_FIELD',
    'MISSING_LEGAL_PRESENCE_DOCUMENT',
    'MISSING_CONTROL_STRUCTURE_DOCUMENT',
    'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
    'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    'MISSING_IDENTITY_DOCUMENT',
    'INVALID_DOCUMENT',
    'EXPIRED_DOCUMENT',
    'POOR_QUALITY_DOCUMENT',
    'SUSPECTED_FRAUD_DOCUMENT',
    'WRONG_DOCUMENT_TYPE',
    'INCOMPLETE_DOCUMENT',
    'UNREADABLE_DOCUMENT',
    'DOCUMENT_VERIFICATION_FAILED',
    'APPLICANT_SANCTIONED',
    'APPLICANT_FRAUD',
    'APPLICANT_CRIMINAL_RECORD',
    'APPLICANT_REJECTED',
    'MISSING_BENEFICIAL_OWNER',
  ])
  .meta({ id: 'VerificationErrorType' });

const VerificationError = z
  .object({
    resourceId: z.string(),
    type: VerificationErrorType,
    field: z.string().optional(),
    acceptedDocumentTypes: z.array(z.string()).optional(),
    reason: z.string(),
  })
  .meta({ id: 'VerificationError' });
export type VerificationErrorView = z.infer<typeof VerificationError>;

export const Verification = z
  .object({
    id: z.string().meta({ example: 'Verification:019542f5-b3e7-1d02-0000-000000000001' }),
    customerId: z.string(),
    verificationStatus: VerificationStatus,
    errors: z.array(VerificationError),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'Verification' });
export type VerificationView = z.infer<typeof Verification>;

export const VerificationRequest = z.strictObject({ customerId: z.string().max(128) }).meta({ id: 'VerificationRequest' });
export const VerificationList = pageOf(Verification, 'VerificationListResponse');
export const VerificationListQuery = z.object({
  customerId: z.string().max(128).optional(),
  verificationStatus: VerificationStatus.optional(),
  limit: limitParam,
  cursor: cursorParam,
});
export const VerificationIdParams = z.object({ verificationId: z.string().max(128) });

// --- Hosted KYC links ---

export const KycLinkParams = z.object({ customerId: z.string().max(128) });

export const KycLinkCreateRequest = z
  .object({
    redirectUri: z.string().max(2048).optional().meta({
      description:
        'Where the browser goes once the customer completes (or fails) the hosted flow: an https URL (in the sandbox also http to localhost or 127.0.0.1). Kept with the link, never taken from the page.',
      example: 'https://app.example.com/onboarding/completed',
    }),
  })
  .meta({ id: 'KycLinkCreateRequest' });

export const KycProvider = z.enum(['SUMSUB']).meta({
  id: 'KycProvider',
  description: "The reference's only provider value; the sandbox's own hosted page stands in for it (no SDK token is given)",
});

export const KycLinkResponse = z
  .object({
    kycUrl: z.string().meta({
      description:
        'The hosted page the customer opens: single-use, until expiresAt. Its secret is in the URL fragment (never sent to a server log)',
      example: 'https://api.example.com/kyc#dGhpcyBpcyBub3QgYSByZWFsIHNlY3JldCBvbmx5IGFuIGV4YW1wbGU',
    }),
    expiresAt: DateTime,
    provider: KycProvider,
  })
  .meta({ id: 'KycLinkResponse' });
export type KycLinkView = z.infer<typeof KycLinkResponse>;

/** What the hosted page sends: the link's secret (from its URL fragment). */
export const HostedKycLinkRequest = z.object({ secret: z.string().min(1).max(128) }).meta({ id: 'HostedKycLinkRequest' });

export const HostedKycLink = z
  .object({
    state: z.enum(['OPEN', 'USED', 'EXPIRED']).meta({ description: 'OPEN: it can be completed; USED: it was; EXPIRED: too late' }),
    customerType: z.enum(['INDIVIDUAL', 'BUSINESS']),
    name: z.string().meta({ description: "The customer's full name, legal name or platform customer id" }),
    platformName: z.string(),
    expiresAt: DateTime,
    outcome: KycLinkOutcome.optional().meta({ description: 'How it ended, once USED' }),
  })
  .meta({ id: 'HostedKycLink' });
export type HostedKycLinkView = z.infer<typeof HostedKycLink>;

export const HostedKycCompleteRequest = HostedKycLinkRequest.extend({
  outcome: KycLinkOutcome.meta({ description: 'APPROVED: the customer completed verification; REJECTED: it failed' }),
}).meta({ id: 'HostedKycCompleteRequest' });

export const HostedKycCompletion = z
  .object({
    outcome: KycLinkOutcome,
    redirectUri: z.string().optional().meta({ description: "Where the page sends the browser: the link's redirectUri, if it has one" }),
  })
  .meta({ id: 'HostedKycCompletion' });
