// The operator's providers (payment rail, identity provider): signed instructions out, authenticated outcomes in.
import { MIN_PROVIDER_SECRET, type ProviderSettings, type ServiceMode } from '../env';
import { PROVIDER_SIGNATURE_HEADER, signProviderMessage, verifyProviderMessage, type SignaturePurpose } from '../crypto/provider-signature';
import { ApiError, notFound } from '../http/errors';

/** Where a provider's instructions go and how they are signed. */
export interface ProviderChannel {
  /** What the provider is, for messages and logs (`payment rail`, `identity provider`). */
  label: string;
  /**
   * POSTs one signed instruction (its `id` also as `Idempotency-Key`: a provider answers a repeat as it answered
   * the first) and gives the provider's answer, whatever its status; throws on a network failure or timeout.
   */
  post(instruction: { id: string; body: string }, timeoutMs: number): Promise<Response>;
}

/** What a provider is: its label, the path a bound Worker receives instructions on, what it signs with. */
export interface ProviderKind {
  label: string;
  /** The path of instructions on a service binding (`/rail/instructions`); a URL is used as it is. */
  path: string;
  instruction: SignaturePurpose;
  outcome: SignaturePurpose;
}

export const PAYMENT_RAIL: ProviderKind = {
  label: 'payment rail',
  path: '/rail/instructions',
  instruction: 'rail-instruction',
  outcome: 'rail-outcome',
};
export const IDENTITY_PROVIDER: ProviderKind = {
  label: 'identity provider',
  path: '/identity/instructions',
  instruction: 'identity-instruction',
  outcome: 'identity-outcome',
};

/** The channel to a configured provider (a service binding when bound, else its URL); undefined when it is not configured. */
export function providerChannel(kind: ProviderKind, s: ProviderSettings, binding: Fetcher | undefined): ProviderChannel | undefined {
  if (s.problem || !s.secret) return undefined;
  const secret = s.secret;
  const url = binding ? `https://provider${kind.path}` : s.url!;
  const send = (request: Request) => (binding ? binding.fetch(request) : fetch(request));
  return {
    label: kind.label,
    async post({ id, body }, timeoutMs) {
      // Signed with the wall clock: the provider checks the time against its own.
      const signature = await signProviderMessage(secret, kind.instruction, body, Date.now());
      const request = new Request(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': id, [PROVIDER_SIGNATURE_HEADER]: signature },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return send(request);
    },
  };
}

/** 503 SERVICE_NOT_CONFIGURED naming what the operator must set. */
export function providerNotConfigured(kind: ProviderKind, s: ProviderSettings): ApiError {
  return new ApiError('SERVICE_NOT_CONFIGURED', `No ${kind.label} is configured on this service: ${s.problem ?? 'set it up'}`, {
    provider: kind.label,
  });
}

const REFUSALS = {
  missing: `The ${PROVIDER_SIGNATURE_HEADER} header is required`,
  malformed: `The ${PROVIDER_SIGNATURE_HEADER} header is not t=<unix seconds>,v1=<hex HMAC-SHA256>`,
  stale: 'The signature time is more than 5 minutes from the service clock',
  mismatch: 'The signature does not match the body under the provider secret',
} as const;

/**
 * Checks that an outcome comes from the provider: signed under its secret, for its outcome purpose, within
 * the time window (401 INVALID_SIGNATURE naming why otherwise). Only the secret is needed: outcomes of
 * payments in flight are still taken while the provider's endpoint is being changed. The sandbox takes
 * none (404, as a path it does not serve): its own rules decide.
 */
export async function authenticateOutcome(
  kind: ProviderKind,
  mode: ServiceMode,
  s: ProviderSettings,
  header: string | null,
  rawBody: string,
  now: number,
) {
  if (mode === 'sandbox') throw notFound('ROUTE_NOT_FOUND', `The sandbox has no operator ${kind.label}: its own rules decide`);
  if (!s.secret || s.secret.length < MIN_PROVIDER_SECRET) throw providerNotConfigured(kind, s);
  const check = await verifyProviderMessage(s.secret, kind.outcome, header, rawBody, now);
  if (!check.ok) throw new ApiError('INVALID_SIGNATURE', REFUSALS[check.problem], { reason: check.problem });
}
