// The UMA provider routes: the directory, and the operator's loading of it.
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { UmaProviderList, UmaProviderListQuery, UmaProviderLoad, UmaProviderLoadResult } from './schema';
import { umaProviderLoads, umaProvidersFrom, loadUmaProviders } from './service';

const umaProviderRoutes = [
  defineRoute({
    method: 'GET',
    path: '/uma-providers',
    operationId: 'getAvailableUmaProviders',
    summary: 'List UMA providers (ordered by name)',
    tag: 'Available UMA Providers',
    auth: 'basic',
    permission: 'VIEW',
    query: UmaProviderListQuery,
    responses: { 200: { description: 'A page of providers', schema: UmaProviderList }, ...errorResponses(400, 401, 403) },
    load: ({ db, platformId, query }) => umaProviderLoads(db, platformId, query),
    handler: (c) => json(umaProvidersFrom(c.query, c.loaded)),
  }),
];

/** Operator surface: production operators load their provider directory (the sandbox one is seeded). */
const umaProviderOperatorRoutes = [
  defineRoute({
    method: 'POST',
    path: '/operator/uma-providers',
    operationId: 'loadUmaProviders',
    summary: 'Add UMA providers, or replace those with the same domain',
    tag: 'Operator',
    auth: 'operator',
    body: UmaProviderLoad,
    responses: {
      200: { description: 'Counts of added and replaced providers', schema: UmaProviderLoadResult },
      ...errorResponses(400, 401, 404, 413),
    },
    handler: async (c) => json(await loadUmaProviders(c.env, c.body.providers, c.now)),
  }),
];

/** The UMA provider directory, and the operator's management of it. */
export const umaRoutes = [...umaProviderRoutes, ...umaProviderOperatorRoutes];
