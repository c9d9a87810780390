// The sandbox's KYC and KYB outcomes, chosen by the last 3 characters.
import type { VerificationState } from '../db/schema';

type Outcome = Exclude<VerificationState, 'UNVERIFIED'>;

/** The last 3 characters that choose an outcome other than `SANDBOX_VERIFICATION_OTHERWISE`. */
export const SANDBOX_VERIFICATION_SUFFIXES: Readonly<Record<string, Outcome>> = { '001': 'PENDING', '002': 'REJECTED' };
export const SANDBOX_VERIFICATION_OTHERWISE: Outcome = 'APPROVED';
/**
 * An individual customer's KYC by `POST /verifications` (a regulated platform's; others use the hosted KYC link) has
 * no magic value: it always reaches this.
 */
export const SANDBOX_INDIVIDUAL_KYC: Outcome = 'APPROVED';

/** Where each sandbox verification reads its value (GET /sandbox/magic-values lists them). */
export const SANDBOX_VERIFICATIONS = [
  { kind: 'KYB', what: 'KYB of a business customer', operation: 'POST /verifications', field: 'businessInfo.registrationNumber' },
  { kind: 'KYC', what: 'KYC of a beneficial owner', operation: 'POST /beneficial-owners', field: 'personalInfo.lastName' },
] as const;

function sandboxOutcome(value: string): Outcome {
  const suffix = value.slice(-3);
  return Object.hasOwn(SANDBOX_VERIFICATION_SUFFIXES, suffix) ? SANDBOX_VERIFICATION_SUFFIXES[suffix]! : SANDBOX_VERIFICATION_OTHERWISE;
}

/** KYB of a business by `businessInfo.registrationNumber`. */
export const sandboxKybStatus = (registrationNumber: string) => sandboxOutcome(registrationNumber);

/** KYC of a beneficial owner by `personalInfo.lastName`. */
export const sandboxKycStatus = (lastName: string) => sandboxOutcome(lastName);
