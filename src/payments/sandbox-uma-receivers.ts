// The sandbox's UMA receivers and the counterparties that refuse a look-up, by local part.
import type { Settings } from '../env';
import { ApiError, notFound } from '../http/errors';
import type { Scenario } from './sandbox-plans';

interface UmaReceiver {
  address: string;
  currency: string;
  scenario: Scenario;
  name: string;
}

/** The sandbox receivers, by local part; the domain is `settings.sandboxUmaDomain`. */
export const SANDBOX_UMA_RECEIVERS: Readonly<Record<string, Omit<UmaReceiver, 'address'>>> = {
  '$success.usd': { currency: 'USD', scenario: 'UMA_SUCCESS', name: 'Sandbox Receiver USD' },
  '$success.eur': { currency: 'EUR', scenario: 'UMA_SUCCESS', name: 'Sandbox Receiver EUR' },
  '$success.mxn': { currency: 'MXN', scenario: 'UMA_SUCCESS', name: 'Sandbox Receiver MXN' },
  '$pending.long.usd': { currency: 'USD', scenario: 'UMA_PENDING_LONG', name: 'Sandbox Slow Receiver' },
  '$fail.compliance.usd': { currency: 'USD', scenario: 'UMA_COMPLIANCE_FAILED', name: 'Sandbox Blocked Receiver' },
};

/**
 * Sandbox addresses whose counterparty fails before any payment (the reference's 412 and 424 of a look-up
 * and of a quote), by local part, with the error they answer.
 */
export const SANDBOX_UMA_REFUSALS: Readonly<
  Record<string, { code: 'UNSUPPORTED_UMA_VERSION' | 'LNURLP_REQUEST_FAILED'; message: string }>
> = {
  '$fail.version.usd': {
    code: 'UNSUPPORTED_UMA_VERSION',
    message: "The receiver's counterparty supports no UMA version this service speaks",
  },
  '$fail.lnurlp.usd': { code: 'LNURLP_REQUEST_FAILED', message: "The receiver's counterparty did not answer the LNURLP request" },
};

const localPartOn = (address: string, s: Settings): string | null => {
  if (s.mode !== 'sandbox') return null;
  const at = address.lastIndexOf('@');
  return address.slice(at + 1) === s.sandboxUmaDomain ? address.slice(0, at) : null;
};

/** The sandbox counterparty behind a UMA address (lower-cased, with `$`), or null when there is none. */
export function sandboxUmaReceiver(address: string, s: Settings): UmaReceiver | null {
  const local = localPartOn(address, s);
  const receiver = local !== null && Object.hasOwn(SANDBOX_UMA_RECEIVERS, local) ? SANDBOX_UMA_RECEIVERS[local] : undefined;
  return receiver ? { address, ...receiver } : null;
}

/**
 * The receiver at a UMA address (lower-cased, with `$`), as its counterparty answers: the receiver, or 404
 * UMA_NOT_FOUND (a well-formed address with no receiver), 412 UNSUPPORTED_UMA_VERSION or 424
 * LNURLP_REQUEST_FAILED (SANDBOX_UMA_REFUSALS).
 */
export function resolveUmaReceiver(address: string, s: Settings): UmaReceiver {
  const receiver = sandboxUmaReceiver(address, s);
  if (receiver) return receiver;
  const local = localPartOn(address, s);
  const refusal = local !== null && Object.hasOwn(SANDBOX_UMA_REFUSALS, local) ? SANDBOX_UMA_REFUSALS[local] : undefined;
  if (refusal) throw new ApiError(refusal.code, refusal.message, { receiverUmaAddress: address });
  throw notFound('UMA_NOT_FOUND', `No receiver at ${address}`);
}
