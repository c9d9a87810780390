// The KYC schemas: beneficial-owner lists, verifications and their errors.
import * as z from 'zod';
import { VerificationStatus } from '../db/enums';
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
