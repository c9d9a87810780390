// How the outcome routes of the operator's providers document themselves in /openapi.json.
import { errorResponses } from '../http/responses';
import { PROVIDER_SIGNATURE_HEADER } from '../crypto/provider-signature';

/** The tag of the operator's provider surfaces (the payment rail's outcomes and the identity provider's). */
export const PROVIDERS_TAG = 'Operator providers';

/** The signature header an outcome carries, signed with `secret`. */
export const providerSignatureHeader = (secret: string, purpose: string) => ({
  [PROVIDER_SIGNATURE_HEADER]: {
    description: `\`t=<unix seconds>,v1=<hex HMAC-SHA256(${secret}, "${purpose}.<t>.<raw body>")>\`, at most 5 minutes from the service clock (401 INVALID_SIGNATURE otherwise, \`details.reason\` saying why)`,
    required: true,
  },
});

/** Where the provider's secret is not set (the sandbox, which has no operator providers, answers 404). */
export const providerNotConfiguredResponse = (secret: string) => ({
  503: { ...errorResponses(503)[503]!, description: `SERVICE_NOT_CONFIGURED: ${secret} is not set` },
});
