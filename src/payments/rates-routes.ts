// GET /exchange-rates.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { ExchangeRateList, ExchangeRateQuery, ratesUnavailableResponse } from './rates-schema';
import { listExchangeRates } from './rates-service';
import { rateSource } from './rates-source';

export const ratesRoutes = [
  defineRoute({
    method: 'GET',
    path: '/exchange-rates',
    operationId: 'getExchangeRates',
    summary: "Exchange rates of the platform's corridors, with its fees (fixed for 5-minute windows)",
    tag: 'Exchange Rates',
    auth: 'basic',
    permission: 'VIEW',
    query: ExchangeRateQuery,
    responses: {
      200: { description: 'Rates matching the filters', schema: ExchangeRateList },
      ...errorResponses(400, 401, 403),
      ...ratesUnavailableResponse,
    },
    // Pure computation on the platform row from authentication and the mode's rates: no further query.
    handler: async (c) => json(listExchangeRates(c.auth.platform, c.query, await rateSource(c.settings)(c.now))),
  }),
];
