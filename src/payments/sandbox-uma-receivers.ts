// The sandbox's UMA receivers (spec 4.9), by local part.
import type { Settings } from '../env';
import type { SandboxScenario as Scenario } from './sandbox-rail';

interface UmaReceiver {
  address: string;
  currency: string;
  scenario: Scenario;
  name: string;
}

/** Spec 4.9's sandbox receivers, by local part; the domain is `settings.sandboxUmaDomain`. */
export const SANDBOX_UMA_RECEIVERS: Readonly<Record<string, Omit<UmaReceiver, 'address'>>> = {
  '$success.usd': { currency: 'USD', scenario: 'UMA_SUCCESS', name: 'Sandbox Receiver USD' },
  '$success.eur': { currency: 'EUR', scenario: 'UMA_SUCCESS', name: 'Sandbox Receiver EUR' },
  '$success.mxn': { currency: 'MXN', scenario: 'UMA_SUCCESS', name: 'Sandbox Receiver MXN' },
  '$pending.long.usd': { currency: 'USD', scenario: 'UMA_PENDING_LONG', name: 'Sandbox Slow Receiver' },
  '$fail.compliance.usd': { currency: 'USD', scenario: 'UMA_COMPLIANCE_FAILED', name: 'Sandbox Blocked Receiver' },
};

/** The sandbox counterparty behind a UMA address (lower-cased, with `$`), or null when there is none. */
export function sandboxUmaReceiver(address: string, s: Settings): UmaReceiver | null {
  if (s.mode !== 'sandbox') return null;
  const at = address.lastIndexOf('@');
  if (address.slice(at + 1) !== s.sandboxUmaDomain) return null;
  const local = address.slice(0, at);
  const receiver = Object.hasOwn(SANDBOX_UMA_RECEIVERS, local) ? SANDBOX_UMA_RECEIVERS[local] : undefined;
  return receiver ? { address, ...receiver } : null;
}
