// POST /providers/rail/outcomes: the operator's payment rail reports what became of a payment (production).
import { homeOfReport } from '../http/home';
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { PROVIDER_SIGNATURE_HEADER } from '../crypto/provider-signature';
import { providerNotConfiguredResponse, providerSignatureHeader, PROVIDERS_TAG } from '../providers/route-docs';
import { RailOutcome, RailOutcomeResult } from './rail-schema';
import { receiveRailOutcome } from './rail-outcomes';
import { paymentDeps } from './transaction-change';

export const railRoutes = [
  defineRoute({
    method: 'POST',
    path: '/providers/rail/outcomes',
    operationId: 'reportRailOutcome',
    summary:
      "Production: the operator's payment rail reports a payment's outcome, signed with RAIL_SECRET; applied once (a repeat answers applied: false)",
    tag: PROVIDERS_TAG,
    auth: 'none',
    headers: providerSignatureHeader('RAIL_SECRET', 'rail-outcome'),
    body: RailOutcome,
    // The report names its platform: the directory knows its home.
    home: ({ body }, env) => homeOfReport(env, body.platformId),
    responses: {
      200: { description: 'The outcome, applied now or already (`applied: false`)', schema: RailOutcomeResult },
      ...errorResponses(400, 401, 404, 409, 413, 415, 429),
      ...providerNotConfiguredResponse('RAIL_SECRET'),
    },
    handler: async (c) =>
      json(
        await receiveRailOutcome(paymentDeps(c), c.settings, c.request.headers.get(PROVIDER_SIGNATURE_HEADER), c.rawBody, c.body, c.now),
      ),
  }),
];
