import type { ServiceMode } from '../env';
import type { BeneficiaryVerificationStatus, ExternalAccountRow } from '../db/schema';
import { ApiError } from '../http/errors';
import type { Beneficiary, ExternalAccountCreateInfo } from './external-schema';

/** The field holding an account type's primary identifier (account number, IBAN, CLABE, address...). */
export function identifierField(info: ExternalAccountCreateInfo): string {
  switch (info.accountType) {
    case 'USD_ACCOUNT':
    case 'GBP_ACCOUNT':
      return 'accountNumber';
    case 'EUR_ACCOUNT':
      return 'iban';
    case 'MXN_ACCOUNT':
      return 'clabeNumber';
    case 'LIGHTNING':
      return info.lightningAddress !== undefined ? 'lightningAddress' : info.bolt12 !== undefined ? 'bolt12' : 'invoice';
    default:
      return 'address';
  }
}

export function identifierOf(info: ExternalAccountCreateInfo): string {
  return String((info as Record<string, unknown>)[identifierField(info)]);
}

/**
 * Spec 4.9 magic suffix of an identifier: its last 3 characters when they are digits; for identifiers with a
 * domain part (`user102@domain`) the digits are those at the end of the username part. Null: no magic.
 */
export function sandboxSuffixOf(identifier: string): string | null {
  const at = identifier.lastIndexOf('@');
  const local = at >= 0 ? identifier.slice(0, at) : identifier;
  const suffix = local.slice(-3);
  return /^[0-9]{3}$/.test(suffix) ? suffix : null;
}

/**
 * An external account's primary identifier and its 3-digit sandbox suffix. Transfer and quote outcomes
 * (spec 4.9) are chosen from the same suffix as the beneficiary verification.
 */
export function primaryIdentifier(account: Pick<ExternalAccountRow, 'identifier'>): { identifier: string; suffix: string | null } {
  return { identifier: account.identifier, suffix: sandboxSuffixOf(account.identifier) };
}

export interface BeneficiaryCheck {
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
  switch (sandboxSuffixOf(identifierOf(info))) {
    case '102':
      return { status: 'NOT_MATCHED' };
    case '103':
      return { status: 'PARTIAL_MATCH', ...(name ? { verifiedName: partialName(name) } : {}) };
    case '104':
      return { status: 'PENDING' };
    case '105':
      throw new ApiError(400, 'INVALID_BANK_ACCOUNT', 'Invalid account: the receiving institution rejected this account', {
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

/** Each account type's currency, and the rails bank accounts pay out on. */
export const ACCOUNT_TYPE_RULES: Record<ExternalAccountCreateInfo['accountType'], { currencies: string[]; paymentRails?: string[] }> = {
  USD_ACCOUNT: { currencies: ['USD'], paymentRails: ['ACH', 'WIRE'] },
  EUR_ACCOUNT: { currencies: ['EUR'], paymentRails: ['SEPA', 'SEPA_INSTANT'] },
  MXN_ACCOUNT: { currencies: ['MXN'], paymentRails: ['SPEI'] },
  GBP_ACCOUNT: { currencies: ['GBP'], paymentRails: ['FASTER_PAYMENTS'] },
  SPARK_WALLET: { currencies: ['BTC'] },
  LIGHTNING: { currencies: ['BTC'] },
  SOLANA_WALLET: { currencies: ['USDC'] },
  TRON_WALLET: { currencies: ['USDC'] },
  ETHEREUM_WALLET: { currencies: ['USDC'] },
  BASE_WALLET: { currencies: ['USDC'] },
  POLYGON_WALLET: { currencies: ['USDC'] },
};
