import type { BeneficialOwnerRow, VerificationRow } from '../db/schema';
import { iso } from '../common/time';
import type { BeneficialOwnerView, PersonalInfo, VerificationErrorView } from './schema';

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

export function verificationView(row: VerificationRow) {
  return {
    id: row.id,
    customerId: row.customerId,
    verificationStatus: row.verificationStatus,
    errors: row.errors as VerificationErrorView[],
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}
