// The sandbox's KYC and KYB outcomes, chosen by the last 3 characters (spec 4.9).
import type { VerificationState } from '../db/schema';

/** Spec 4.9: the last 3 characters choose the outcome (`001` PENDING, `002` REJECTED, any other APPROVED). */
function sandboxOutcome(value: string): Exclude<VerificationState, 'UNVERIFIED'> {
  const suffix = value.slice(-3);
  if (suffix === '001') return 'PENDING';
  if (suffix === '002') return 'REJECTED';
  return 'APPROVED';
}

/** KYB of a business by `businessInfo.registrationNumber` (spec 4.9). */
export const sandboxKybStatus = (registrationNumber: string) => sandboxOutcome(registrationNumber);

/** KYC of a beneficial owner by `personalInfo.lastName` (spec 4.9). */
export const sandboxKycStatus = (lastName: string) => sandboxOutcome(lastName);
