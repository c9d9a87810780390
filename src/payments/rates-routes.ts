import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { ExchangeRateList, ExchangeRateQuery } from './rates-schema';
import { listExchangeRates } from './rates-service';

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
    responses: { 200: { description: 'Rates matching the filters', schema: ExchangeRateList }, ...errorResponses(400, 401, 403) },
    // Pure computation on the platform row from authentication: no further query.
    handler: (c) => json(listExchangeRates(c.auth.platform, c.query, c.now)),
  }),
];
