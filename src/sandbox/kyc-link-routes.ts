// The sandbox identity provider's hosted KYC page calls these (GET /kyc serves the page): no credentials, the
// link's secret from the page's URL fragment is the proof.
import { defineRoute, json, type Ctx } from '../http/route';
import { loadTogether } from '../db/client';
import { homeOfSecret } from '../db/homes';
import { hashSecret } from '../crypto/secrets';
import { errorResponses } from '../http/responses';
import { HostedKycCompleteRequest, HostedKycCompletion, HostedKycLink, HostedKycLinkRequest } from '../kyc/schema';
import { completeHostedLink, hostedLinkFrom, hostedLinkLoads } from '../kyc/links-service';

const tag = 'Sandbox';

export const sandboxKycLinkRoutes = [
  defineRoute({
    method: 'POST',
    path: '/sandbox/kyc-links/open',
    operationId: 'openSandboxKycLink',
    summary: "Sandbox hosted KYC page: the link's customer and state (the link's secret is the credential)",
    tag,
    auth: 'none',
    body: HostedKycLinkRequest,
    home: ({ body }, env) => homeOfSecret(env, body.secret, `kyc:${hashSecret(body.secret)}`),
    responses: { 200: { description: 'The link', schema: HostedKycLink }, ...errorResponses(400, 404, 413) },
    handler: async (c) => json(hostedLinkFrom(await loadHosted(c), c.now)),
  }),
  defineRoute({
    method: 'POST',
    path: '/sandbox/kyc-links/complete',
    operationId: 'completeSandboxKycLink',
    summary: 'Sandbox hosted KYC page: the customer completes (APPROVED) or fails (REJECTED) verification; the link is spent',
    tag,
    auth: 'none',
    body: HostedKycCompleteRequest,
    home: ({ body }, env) => homeOfSecret(env, body.secret, `kyc:${hashSecret(body.secret)}`),
    responses: {
      200: { description: 'The outcome, and where the page sends the browser', schema: HostedKycCompletion },
      ...errorResponses(400, 404, 409, 410, 413),
    },
    handler: async (c) => json(await completeHostedLink(c.db, c.env.JOBS, await loadHosted(c), c.body.outcome, c.now)),
  }),
];

/** The link the page's secret names (its customer and platform with it), in one round trip. */
const loadHosted = (c: Pick<Ctx<'none', unknown, unknown, { secret: string }>, 'db' | 'body'>) =>
  loadTogether(c.db, hostedLinkLoads(c.db, c.body.secret));
