// Who a transaction belongs to and the counterparty information it shows.
import { type CustomerRow, type ExternalAccountRow, type InternalAccountRow, type PlatformRow } from '../db/schema';
import { ApiError, conflict, invalidFields } from '../http/errors';

/** Who a transaction belongs to: a customer, or the platform itself (shown with the platform id). */
export interface Owner {
  customerId: string | null;
  platformCustomerId: string;
  umaAddress: string | null;
}

/** The owner of an account of `customerId` (null: the platform's own), given that customer's row. */
export function ownerFrom(platform: PlatformRow, customerId: string | null, row: CustomerRow | undefined): Owner {
  if (!customerId) return { customerId: null, platformCustomerId: platform.id, umaAddress: null };
  return { customerId, platformCustomerId: row?.platformCustomerId ?? customerId, umaAddress: row?.umaAddress ?? null };
}

/** The beneficiary an external account pays, as counterparty information (FULL_NAME). */
export function externalCounterparty(account: ExternalAccountRow): Record<string, string> | null {
  const b = (account.accountInfo as { beneficiary?: { fullName?: string; legalName?: string } }).beneficiary;
  const name = b?.fullName ?? b?.legalName;
  return name ? { FULL_NAME: name } : null;
}

/** A customer's name as counterparty information. */
export function customerCounterparty(customer: CustomerRow | undefined): Record<string, string> | null {
  if (!customer) return null;
  const info = customer.info as { fullName?: string; businessInfo?: { legalName?: string } };
  const name = info.fullName ?? info.businessInfo?.legalName;
  return name ? { FULL_NAME: name } : null;
}

export function requireActiveInternal(account: InternalAccountRow): void {
  if (account.status !== 'ACTIVE') throw conflict(`Internal account ${account.id} is ${account.status}`);
}

export function requireActiveExternal(account: ExternalAccountRow): void {
  if (account.status !== 'ACTIVE') throw conflict(`External account ${account.id} is ${account.status}`);
}

/** Transfers: same currency, and both accounts of the same customer or both of the platform. */
export function checkTransferPair(
  internal: InternalAccountRow,
  external: ExternalAccountRow,
  internalField: string,
  externalField: string,
): void {
  if (internal.currency !== external.currency) {
    throw invalidFields('request body', [
      {
        field: externalField,
        message: `Holds ${external.currency} while ${internalField} holds ${internal.currency}; transfers move one currency (use a quote to convert)`,
      },
    ]);
  }
  if (internal.customerId !== external.customerId) {
    throw invalidFields('request body', [
      { field: externalField, message: 'Must belong to the same customer as the internal account (or both to the platform)' },
    ]);
  }
}

export const insufficientFunds = (accountId: string) =>
  new ApiError('INSUFFICIENT_FUNDS', `Internal account ${accountId} does not hold enough funds`, { accountId });
