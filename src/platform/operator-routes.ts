// The operator's platform routes (Bearer OPERATOR_TOKEN).
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { umaDomainTaken } from './config-routes';
import { PlatformCreate, PlatformCreated, PlatformList, PlatformListQuery } from './schema';
import { createPlatform, listPlatforms } from './service';

const tag = 'Operator';

/** Operator surface (Bearer OPERATOR_TOKEN); absent (404) when that secret is not set. */
export const operatorRoutes = [
  defineRoute({
    method: 'POST',
    path: '/operator/platforms',
    operationId: 'createPlatform',
    summary: 'Create a platform and its first API token',
    tag,
    auth: 'operator',
    body: PlatformCreate,
    responses: {
      201: { description: 'Created', schema: PlatformCreated },
      ...errorResponses(400, 401, 404, 413),
      ...umaDomainTaken,
    },
    handler: async (c) => json(await createPlatform(c.env, c.db, c.body, c.now, c.settings), 201),
  }),
  defineRoute({
    method: 'GET',
    path: '/operator/platforms',
    operationId: 'listPlatforms',
    summary: 'List platforms',
    tag,
    auth: 'operator',
    query: PlatformListQuery,
    responses: { 200: { description: 'A page of platforms', schema: PlatformList }, ...errorResponses(400, 401, 404) },
    handler: async (c) => json(await listPlatforms(c.env, c.db, c.query, c.settings)),
  }),
];
