import { z } from 'zod';
import { Address, CountryCode, DateOnly, Email, text } from '../common/fields';
import { DateTime } from '../common/time';
import { cursorParam, limitParam, pageOf } from '../http/pagination';

export const KycStatus = z.enum(['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED']).meta({ id: 'KycStatus' });
export const KybStatus = z.enum(['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED']).meta({ id: 'KybStatus' });

export const BeneficialOwnerRole = z
  .enum(['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER'])
  .meta({ id: 'BeneficialOwnerRole' });
export const IdentificationType = z.enum(['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID']).meta({ id: 'IdentificationType' });

const PersonalInfoFields = z.strictObject({
  firstName: text(),
  middleName: text().optional(),
  lastName: text(),
  birthDate: DateOnly,
  nationality: CountryCode,
  email: Email.optional(),
  phoneNumber: z
    .string()
    .regex(/^\+[1-9]\d{1,14}$/, 'Must be an E.164 phone number such as +14155550192')
    .optional(),
  address: Address,
  idType: IdentificationType,
  identifier: text(64),
  countryOfIssuance: CountryCode.optional(),
});

export const BeneficialOwnerPersonalInfo = PersonalInfoFields.meta({ id: 'BeneficialOwnerPersonalInfo' });
export type PersonalInfo = z.infer<typeof BeneficialOwnerPersonalInfo>;
export const BeneficialOwnerPersonalInfoUpdate = PersonalInfoFields.partial().meta({ id: 'BeneficialOwnerPersonalInfoUpdate' });

const Roles = z
  .array(BeneficialOwnerRole)
  .min(1)
  .max(6)
  .refine((r) => new Set(r).size === r.length, { message: 'Each role may appear only once' });
const Ownership = z.int().min(0).max(100).meta({ description: 'Percentage of ownership in the business (0-100)' });

export const BeneficialOwnerCreate = z
  .strictObject({
    customerId: z.string().max(128),
    roles: Roles,
    ownershipPercentage: Ownership,
    personalInfo: BeneficialOwnerPersonalInfo,
  })
  .meta({ id: 'BeneficialOwnerCreateRequest' });
export type BeneficialOwnerCreate = z.infer<typeof BeneficialOwnerCreate>;

export const BeneficialOwnerUpdate = z
  .strictObject({
    roles: Roles.optional(),
    ownershipPercentage: Ownership.optional(),
    personalInfo: BeneficialOwnerPersonalInfoUpdate.optional(),
  })
  .meta({ id: 'BeneficialOwnerUpdateRequest' });
export type BeneficialOwnerUpdate = z.infer<typeof BeneficialOwnerUpdate>;

export const BeneficialOwner = z
  .object({
    id: z.string().meta({ example: 'BeneficialOwner:019542f5-b3e7-1d02-0000-000000000001' }),
    customerId: z.string(),
    roles: z.array(BeneficialOwnerRole),
    ownershipPercentage: z.int(),
    personalInfo: BeneficialOwnerPersonalInfo,
    kycStatus: KycStatus,
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({ id: 'BeneficialOwner' });
export type BeneficialOwnerView = z.infer<typeof BeneficialOwner>;

export const BeneficialOwnerList = pageOf(BeneficialOwner, 'BeneficialOwnerListResponse');
export const BeneficialOwnerListQuery = z.object({
  customerId: z.string().max(128).meta({ description: 'The business customer whose owners to list' }),
  limit: limitParam,
  cursor: cursorParam,
});
export const BeneficialOwnerIdParams = z.object({ beneficialOwnerId: z.string().max(128) });

// --- Verifications ---

export const VerificationStatus = z
  .enum(['RESOLVE_ERRORS', 'PENDING_MANUAL_REVIEW', 'IN_PROGRESS', 'APPROVED', 'REJECTED', 'READY_FOR_VERIFICATION'])
  .meta({ id: 'VerificationStatus' });

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

export const VerificationError = z
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

export const VerificationRequest = z.strictObject({ customerId: z.string().max(128) }).meta({ id: 'VerificationRequest' });
export const VerificationList = pageOf(Verification, 'VerificationListResponse');
export const VerificationListQuery = z.object({
  customerId: z.string().max(128).optional(),
  verificationStatus: VerificationStatus.optional(),
  limit: limitParam,
  cursor: cursorParam,
});
export const VerificationIdParams = z.object({ verificationId: z.string().max(128) });
