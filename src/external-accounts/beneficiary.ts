// Beneficiary name verification of an external account (sandbox by identifier suffix).
import type { ServiceMode } from '../env';
import type { BeneficiaryVerificationStatus, ExternalAccountRow } from '../db/schema';
import { ApiError } from '../http/errors';
import { identifierField, identifierOf, sandboxSuffix, type ExternalAccountCreateInfo } from './corridors';

type Beneficiary = { beneficiaryType: 'INDIVIDUAL'; fullName: string } | { beneficiaryType: 'BUSINESS'; legalName: string };

/**
 * An external account's primary identifier and its 3-digit sandbox suffix. Transfer and quote outcomes
 * (spec 4.9) are chosen from the same suffix as the beneficiary verification.
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

/**
 * Beneficiary name verification. Sandbox: by the identifier suffix (spec 4.9: 102 NOT_MATCHED, 103 PARTIAL_MATCH,
 * 104 PENDING, 105 invalid account, 106 UNSUPPORTED, 107 CHECKED_BY_RECEIVING_FI, other MATCHED). Production:
 * no name-verification provider is connected, so the result is UNSUPPORTED.
 */
export function verifyBeneficiary(info: ExternalAccountCreateInfo, mode: ServiceMode): BeneficiaryCheck {
  if (mode !== 'sandbox') return { status: 'UNSUPPORTED' };
  const name = nameOf((info as { beneficiary?: Beneficiary }).beneficiary);
  switch (sandboxSuffix(info.accountType, identifierOf(info))) {
    case '102':
      return { status: 'NOT_MATCHED' };
    case '103':
      return { status: 'PARTIAL_MATCH', ...(name ? { verifiedName: partialName(name) } : {}) };
    case '104':
      return { status: 'PENDING' };
    case '105':
      throw new ApiError('INVALID_BANK_ACCOUNT', 'Invalid account: the receiving institution rejected this account', {
        fields: [{ field: `accountInfo.${identifierField(info)}`, message: 'The account does not exist or cannot receive payments' }],
      });
    case '106':
      return { status: 'UNSUPPORTED' };
    case '107':
      return { status: 'CHECKED_BY_RECEIVING_FI' };
    default:
      return { status: 'MATCHED', ...(name ? { verifiedName: name } : {}) };
  }
}
