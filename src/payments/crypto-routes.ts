// POST /crypto/estimate-withdrawal-fee.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { ratesUnavailableResponse } from './rates-schema';
import { rateSource } from './rates-source';
import {
  EstimateCryptoWithdrawalFeeRequest,
  EstimateCryptoWithdrawalFeeResponse,
  estimateWithdrawalFee,
  withdrawalLoads,
} from './withdrawal-fee';

export const cryptoRoutes = [
  defineRoute({
    method: 'POST',
    path: '/crypto/estimate-withdrawal-fee',
    operationId: 'estimateCryptoWithdrawalFee',
    summary: 'Estimate the fees of a withdrawal from a crypto internal account to a chain address (changes nothing)',
    tag: 'Cross-Currency Transfers',
    auth: 'basic',
    // A read that takes a body: it changes nothing.
    permission: 'VIEW',
    body: EstimateCryptoWithdrawalFeeRequest,
    responses: {
      200: { description: 'The fees and what arrives', schema: EstimateCryptoWithdrawalFeeResponse },
      ...errorResponses(400, 401, 403, 404, 409, 413, 415),
      503: {
        description:
          'SERVICE_NOT_CONFIGURED: production has no live source of network fees (the sandbox estimates from fixed ones); RATES_UNAVAILABLE: no rate',
        schema: ratesUnavailableResponse[503].schema,
      },
    },
    // The account rides on authentication: no further query.
    load: ({ db, platformId, body }) => withdrawalLoads(db, platformId, body),
    handler: async (c) => json(await estimateWithdrawalFee(c.body, c.loaded, c.settings, rateSource(c.settings), c.now)),
  }),
];
