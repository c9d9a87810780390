// Beneficiary name verification of an external account (sandbox by identifier suffix).
import type { ServiceMode } from '../env';
import type { BeneficiaryVerificationStatus, ExternalAccountRow } from '../db/schema';
import { ApiError } from '../http/errors';
import { identifierField, identifierOf, sandboxSuffix, type ExternalAccountCreateInfo } from './corridors';

type Beneficiary = { beneficiaryType: 'INDIVIDUAL'; fullName: string } | { beneficiaryType: 'BUSINESS'; legalName: string };

/**
 * An external account's primary identifier and its 3-digit sandbox suffix. Transfer and quote outcomes
 * are chosen from the same suffix as the beneficiary verification.
 */
export function primaryIdentifier(account: Pick<ExternalAccountRow, 'identifier' | 'accountType'>): {
  identifier: string;
  suffix: string | null;
} {
  return { identifier: account.identifier, suffix: sandboxSuffix(account.accountType, account.identifier) };
}

interface BeneficiaryCheck {
  status: BeneficiaryVerificationStatus;
  verifiedName?: string;
}

function nameOf(b: Beneficiary | undefined): string | undefined {
  if (!b) return undefined;
  return b.beneficiaryType === 'INDIVIDUAL' ? b.fullName : b.legalName;
}

/** The name a bank reports back for a fuzzy match: initial of the first name, the rest as given. */
function partialName(name: string): string {
  const parts = name.split(/\s+/);
  return parts.length > 1 ? [`${parts[0]!.charAt(0)}.`, ...parts.slice(1)].join(' ') : name.toUpperCase();
}

/** The beneficiary-verification suffixes (1xx); `INVALID_BANK_ACCOUNT` refuses the account (400). Other suffixes: MATCHED. */
export const BENEFICIARY_SUFFIXES: Readonly<Record<string, BeneficiaryVerificationStatus | 'INVALID_BANK_ACCOUNT'>> = {
  '102': 'NOT_MATCHED',
  '103': 'PARTIAL_MATCH',
  '104': 'PENDING',
  '105': 'INVALID_BANK_ACCOUNT',
  '106': 'UNSUPPORTED',
  '107': 'CHECKED_BY_RECEIVING_FI',
};
export const BENEFICIARY_OTHERWISE: BeneficiaryVerificationStatus = 'MATCHED';

/**
 * Beneficiary name verification. Sandbox: by the identifier suffix (BENEFICIARY_SUFFIXES). Production:
 * no name-verification provider is connected, so the result is UNSUPPORTED.
 */
export function verifyBeneficiary(info: ExternalAccountCreateInfo, mode: ServiceMode): BeneficiaryCheck {
  if (mode !== 'sandbox') return { status: 'UNSUPPORTED' };
  const name = nameOf((info as { beneficiary?: Beneficiary }).beneficiary);
  const suffix = sandboxSuffix(info.accountType, identifierOf(info)) ?? '';
  const outcome = Object.hasOwn(BENEFICIARY_SUFFIXES, suffix) ? BENEFICIARY_SUFFIXES[suffix]! : BENEFICIARY_OTHERWISE;
  switch (outcome) {
    case 'INVALID_BANK_ACCOUNT':
      throw new ApiError('INVALID_BANK_ACCOUNT', 'Invalid account: the receiving institution rejected this account', {
        fields: [{ field: `accountInfo.${identifierField(info)}`, message: 'The account does not exist or cannot receive payments' }],
      });
    case 'PARTIAL_MATCH':
      return { status: outcome, ...(name ? { verifiedName: partialName(name) } : {}) };
    case 'MATCHED':
      return { status: outcome, ...(name ? { verifiedName: name } : {}) };
    default:
      return { status: outcome };
  }
}
