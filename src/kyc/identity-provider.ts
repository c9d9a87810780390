// Who verifies a customer's identity behind a hosted KYC link.
import type { Settings } from '../env';

/**
 * Whether hosted KYC links have an identity provider: the sandbox's own page in sandbox mode; in production
 * none is configured, so `POST /customers/{customerId}/kyc-link` answers 503 SERVICE_NOT_CONFIGURED rather than
 * hand a customer the sandbox's page. The one place that decides it.
 */
export function identityProviderConfigured(s: Pick<Settings, 'mode'>): boolean {
  return s.mode === 'sandbox';
}
