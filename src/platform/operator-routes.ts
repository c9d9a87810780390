// The operator's platform routes (Bearer OPERATOR_TOKEN).
import { defineRoute, json } from '../http/route';
import { errorResponses } from '../http/responses';
import { umaDomainTaken } from './config-routes';
import {
  PlatformCreate,
  PlatformCreated,
  PlatformIdParams,
  PlatformList,
  PlatformListQuery,
  PlatformMoved,
  PlatformMoveRequest,
} from './schema';
import { DRAIN_MS, movePlatform } from './move';
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
  defineRoute({
    method: 'POST',
    path: '/operator/platforms/:platformId/move',
    operationId: 'movePlatform',
    summary:
      'Move a platform to another data database, or finish a move that stopped: its writes answer 409 PLATFORM_MOVING (Retry-After) meanwhile, its reads go on',
    tag,
    auth: 'operator',
    params: PlatformIdParams,
    body: PlatformMoveRequest,
    responses: {
      200: { description: 'The move ended: where the platform lives now', schema: PlatformMoved },
      202: { description: 'The move went on and is not over (a large platform takes several calls): ask again', schema: PlatformMoved },
      ...errorResponses(400, 401, 404, 409, 413),
    },
    handler: async (c) => {
      const moved = await movePlatform(c.env, c.db, c.params.platformId, c.body.home, c.now, {
        drainMs: DRAIN_MS,
        roundTrips: c.body.roundTrips,
      });
      return json(moved, moved.done ? 200 : 202);
    },
  }),
];
