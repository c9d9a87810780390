// The platform configuration routes (GET and PATCH /config).
import { defineRoute, json } from '../http/route';
import { conflictHeaders, errorResponses } from '../http/responses';
import { errorSchema } from '../http/errors';
import { PlatformConfig, PlatformConfigUpdate } from './schema';
import { configExtras, configView, updateConfig } from './service';

const tag = 'Platform Configuration';

/** The answer of a write that sets a `umaDomain` another platform has (here and at platform creation). */
export const umaDomainTaken = {
  409: {
    description: 'CONFLICT, details.reason UMA_DOMAIN_TAKEN: another platform has this umaDomain (compared case-insensitively)',
    schema: errorSchema(409),
    headers: conflictHeaders,
  },
};

export const configRoutes = [
  defineRoute({
    method: 'GET',
    path: '/config',
    operationId: 'getPlatformConfig',
    summary: 'Get platform configuration',
    tag,
    auth: 'basic',
    permission: 'VIEW',
    responses: { 200: { description: 'The configuration', schema: PlatformConfig }, ...errorResponses(401, 403) },
    // The platform row arrived with the token lookup: no further query.
    handler: async (c) => json(configView(c.auth.platform, await configExtras(c.settings, c.auth.platform.id))),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/config',
    operationId: 'updatePlatformConfig',
    summary: 'Update platform configuration',
    tag,
    auth: 'basic',
    permission: 'MANAGE',
    body: PlatformConfigUpdate,
    responses: {
      200: { description: 'The updated configuration', schema: PlatformConfig },
      ...errorResponses(400, 401, 403, 413),
      ...umaDomainTaken,
    },
    handler: async (c) => json(await updateConfig(c.env, c.db, c.auth.platform, c.body, c.now, c.settings)),
  }),
];
