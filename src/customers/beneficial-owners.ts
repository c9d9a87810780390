// A business customer's beneficial owners: their shape is part of the customer (its view lists them), so it
// lives here; kyc/ manages owners and verifications on top of it.
import * as z from 'zod';
import { KycStatus } from '../db/enums';
import type { BeneficialOwnerRow } from '../db/schema';
import { Address, CountryCode, DateOnly, Email, Phone, text } from '../common/fields';
import { DateTime, iso } from '../common/time';

const BeneficialOwnerRole = z
  .enum(['UBO', 'DIRECTOR', 'COMPANY_OFFICER', 'CONTROL_PERSON', 'TRUSTEE', 'GENERAL_PARTNER'])
  .meta({ id: 'BeneficialOwnerRole' });
const IdentificationType = z.enum(['SSN', 'ITIN', 'EIN', 'NON_US_TAX_ID']).meta({ id: 'IdentificationType' });

const PersonalInfoFields = z.strictObject({
  firstName: text(),
  middleName: text().optional(),
  lastName: text(),
  birthDate: DateOnly,
  nationality: CountryCode,
  email: Email.optional(),
  phoneNumber: Phone.optional(),
  address: Address,
  idType: IdentificationType,
  identifier: text(64),
  countryOfIssuance: CountryCode.optional(),
});

const BeneficialOwnerPersonalInfo = PersonalInfoFields.meta({ id: 'BeneficialOwnerPersonalInfo' });
export type PersonalInfo = z.infer<typeof BeneficialOwnerPersonalInfo>;
const BeneficialOwnerPersonalInfoUpdate = PersonalInfoFields.partial().meta({ id: 'BeneficialOwnerPersonalInfoUpdate' });

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
type BeneficialOwnerView = z.infer<typeof BeneficialOwner>;

export function beneficialOwnerView(row: BeneficialOwnerRow): BeneficialOwnerView {
  return {
    id: row.id,
    customerId: row.customerId,
    roles: row.roles as BeneficialOwnerView['roles'],
    ownershipPercentage: row.ownershipPercentage,
    personalInfo: row.personalInfo as PersonalInfo,
    kycStatus: row.kycStatus,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}
