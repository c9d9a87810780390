// The hosted KYC link route: a single-use link for a customer to verify on the identity provider's page.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { keyOf } from '../http/idempotency';
import { KycLinkCreateRequest, KycLinkParams, KycLinkResponse } from './schema';
import { createKycLink, kycLinkLoads } from './links-service';

export const kycLinkRoutes = [
  defineRoute({
    method: 'POST',
    path: '/customers/:customerId/kyc-link',
    operationId: 'createCustomerKycLink',
    summary:
      'Generate a hosted KYC link for a customer (single-use, expires in 24 h; the kycStatus changes only when the customer completes or fails it)',
    tag: 'KYC/KYB Verifications',
    auth: 'basic',
    permission: 'MANAGE',
    params: KycLinkParams,
    body: KycLinkCreateRequest.optional(),
    headers: {
      'Idempotency-Key': {
        description:
          "Optional (1 to 255 characters): the platform's key names one link. A repeat of the same request answers that link again (`Idempotent-Replayed: true`): in the sandbox with a fresh secret in its kycUrl (only hashes are kept), and the URL answered before stops working; in production with the same kycUrl (the provider's page with the link's id). The same key with a different request is 422.",
      },
    },
    responses: {
      201: {
        description: 'The link',
        schema: KycLinkResponse,
        headers: { 'Idempotent-Replayed': '`true` when it answers a repeat of an earlier request with the same Idempotency-Key' },
      },
      ...errorResponses(400, 401, 403, 404, 410, 413, 422),
      503: {
        ...errorResponses(503)[503]!,
        description: 'SERVICE_NOT_CONFIGURED: production without an identity provider or its hosted page (IDENTITY_PROVIDER_KYC_URL)',
      },
    },
    load: ({ db, platformId, params }) => kycLinkLoads(db, platformId, params.customerId),
    handler: async (c) => {
      const keyed = keyOf(c.request, c.rawBody);
      if (keyed && 'error' in keyed) throw keyed.error;
      const input = { customerId: c.params.customerId, redirectUri: c.body?.redirectUri, keyed, origin: new URL(c.request.url).origin };
      const { body, replayed } = await createKycLink(c.db, c.home, c.env.JOBS, c.settings, c.auth.platform, input, c.loaded, c.now);
      return json(body, 201, replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
    },
  }),
];
